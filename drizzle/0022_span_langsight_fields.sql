-- Fields LangSight's SDK sends that were dropped: the handoff target, the LLM's finish reason, cache
-- and thinking tokens (priced), lineage provenance and status, schema version and replay_of.
ALTER TABLE "spans" ADD COLUMN "target_agent_name" text;
--> statement-breakpoint
ALTER TABLE "spans" ADD COLUMN "finish_reason" text;
--> statement-breakpoint
ALTER TABLE "spans" ADD COLUMN "cache_read_tokens" integer;
--> statement-breakpoint
ALTER TABLE "spans" ADD COLUMN "cache_creation_tokens" integer;
--> statement-breakpoint
ALTER TABLE "spans" ADD COLUMN "thinking_tokens" integer;
--> statement-breakpoint
ALTER TABLE "spans" ADD COLUMN "lineage_provenance" text;
--> statement-breakpoint
ALTER TABLE "spans" ADD COLUMN "lineage_status" text;
--> statement-breakpoint
ALTER TABLE "spans" ADD COLUMN "schema_version" text;
--> statement-breakpoint
ALTER TABLE "spans" ADD COLUMN "replay_of" text;
