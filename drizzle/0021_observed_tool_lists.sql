-- Tool lists an agent saw (LangSight's list_tools wrapper posts them): drift detection for servers
-- Spyglass cannot reach itself. Drift events say whether a check or an agent's observation found them.
CREATE TABLE "observed_tool_lists" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"server_name" text NOT NULL,
	"agent_name" text,
	"schema_hash" text NOT NULL,
	"tools_count" integer NOT NULL,
	"observed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "observed_tool_lists_server_time_idx" ON "observed_tool_lists" USING btree ("project_id","server_name","observed_at");
--> statement-breakpoint
ALTER TABLE "drift_events" ADD COLUMN "observed_by" text;
--> statement-breakpoint
ALTER TABLE "drift_events" ADD COLUMN "agent_name" text;
