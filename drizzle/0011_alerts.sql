CREATE TABLE "alert_configs" (
	"project_id" text PRIMARY KEY NOT NULL,
	"alert_types" jsonb NOT NULL,
	"chat_webhook" text,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alert_dedup" (
	"project_id" text NOT NULL,
	"dedup_key" text NOT NULL,
	"fired_at" timestamp with time zone NOT NULL,
	CONSTRAINT "alert_dedup_project_id_dedup_key_pk" PRIMARY KEY("project_id","dedup_key")
);
--> statement-breakpoint
CREATE TABLE "alerts" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"type" text NOT NULL,
	"severity" text NOT NULL,
	"title" text NOT NULL,
	"message" text NOT NULL,
	"server_name" text,
	"agent_name" text,
	"session_id" text,
	"dedup_key" text NOT NULL,
	"status" text NOT NULL,
	"fired_at" timestamp with time zone NOT NULL,
	"acknowledged_at" timestamp with time zone,
	"resolved_at" timestamp with time zone,
	"snoozed_until" timestamp with time zone,
	"fields" jsonb NOT NULL,
	"delivery" text NOT NULL,
	"delivery_error" text,
	"delivery_attempts" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX "alert_dedup_time_idx" ON "alert_dedup" USING btree ("fired_at");--> statement-breakpoint
CREATE UNIQUE INDEX "alerts_open_dedup_idx" ON "alerts" USING btree ("project_id","dedup_key") WHERE status <> 'resolved';--> statement-breakpoint
CREATE INDEX "alerts_newest_idx" ON "alerts" USING btree ("project_id","fired_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "alerts_resolved_idx" ON "alerts" USING btree ("resolved_at");