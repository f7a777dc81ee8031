CREATE TABLE "drift_events" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"server_name" text NOT NULL,
	"detected_at" timestamp with time zone NOT NULL,
	"previous_hash" text NOT NULL,
	"current_hash" text NOT NULL,
	"classification" text NOT NULL,
	"changes" jsonb NOT NULL,
	"result_id" text
);
--> statement-breakpoint
CREATE TABLE "health_results" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"server_name" text NOT NULL,
	"status" text NOT NULL,
	"latency_ms" double precision,
	"tools_count" integer,
	"schema_hash" text,
	"error" text,
	"checked_at" timestamp with time zone NOT NULL,
	"schema_drift" boolean DEFAULT false NOT NULL,
	"transport" text,
	"server_info" jsonb,
	"protocol_version" text,
	"instructions" text
);
--> statement-breakpoint
CREATE TABLE "tool_schemas" (
	"hash" text PRIMARY KEY NOT NULL,
	"tools" jsonb NOT NULL,
	"first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "drift_events_server_time_idx" ON "drift_events" USING btree ("project_id","server_name","detected_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "health_results_server_time_idx" ON "health_results" USING btree ("project_id","server_name","checked_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "health_results_time_idx" ON "health_results" USING btree ("checked_at");