CREATE TABLE "lineage_hourly" (
	"project_id" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"edge_type" text NOT NULL,
	"source" text NOT NULL,
	"target" text NOT NULL,
	"calls" integer NOT NULL,
	"errors" integer NOT NULL,
	"latency_sum_ms" double precision NOT NULL,
	CONSTRAINT "lineage_hourly_project_id_hour_edge_type_source_target_pk" PRIMARY KEY("project_id","hour","edge_type","source","target")
);
--> statement-breakpoint
CREATE TABLE "session_tools" (
	"project_id" text NOT NULL,
	"session_id" text NOT NULL,
	"server_name" text NOT NULL,
	"tool_name" text NOT NULL,
	"failures" integer NOT NULL,
	"last_started_at" timestamp with time zone NOT NULL,
	"last_failed" boolean NOT NULL,
	CONSTRAINT "session_tools_project_id_session_id_server_name_tool_name_pk" PRIMARY KEY("project_id","session_id","server_name","tool_name")
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"project_id" text NOT NULL,
	"session_id" text NOT NULL,
	"agent_name" text,
	"first_call_at" timestamp with time zone NOT NULL,
	"last_call_at" timestamp with time zone NOT NULL,
	"last_end_at" timestamp with time zone NOT NULL,
	"span_count" integer NOT NULL,
	"tool_calls" integer NOT NULL,
	"failed_calls" integer NOT NULL,
	"servers_used" text[] NOT NULL,
	"input_tokens" bigint NOT NULL,
	"output_tokens" bigint NOT NULL,
	"est_cost_usd" double precision NOT NULL,
	"tag_rank" integer NOT NULL,
	"has_timeout" boolean NOT NULL,
	"health_tag" text NOT NULL,
	CONSTRAINT "sessions_project_id_session_id_pk" PRIMARY KEY("project_id","session_id")
);
--> statement-breakpoint
ALTER TABLE "spans" ADD COLUMN "cost_usd" double precision;--> statement-breakpoint
CREATE INDEX "sessions_project_last_idx" ON "sessions" USING btree ("project_id","last_call_at" DESC NULLS LAST,"session_id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "sessions_agent_last_idx" ON "sessions" USING btree ("project_id","agent_name","last_call_at" DESC NULLS LAST);