CREATE TABLE "span_hourly" (
	"project_id" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"span_type" text NOT NULL,
	"agent_name" text NOT NULL,
	"server_name" text NOT NULL,
	"tool_name" text NOT NULL,
	"model_id" text NOT NULL,
	"calls" integer NOT NULL,
	"errors" integer NOT NULL,
	"latency_sum_ms" double precision NOT NULL,
	"input_tokens" bigint NOT NULL,
	"output_tokens" bigint NOT NULL,
	"cost_usd" double precision NOT NULL,
	"estimated_calls" integer NOT NULL,
	CONSTRAINT "span_hourly_project_id_hour_span_type_agent_name_server_name_tool_name_model_id_pk" PRIMARY KEY("project_id","hour","span_type","agent_name","server_name","tool_name","model_id")
);
--> statement-breakpoint
ALTER TABLE "spans" ADD COLUMN "cost_estimated" boolean;--> statement-breakpoint
-- Backfill from the spans already stored, so cost and anomaly reads cover history from the start.
INSERT INTO "span_hourly" ("project_id", "hour", "span_type", "agent_name", "server_name", "tool_name", "model_id",
  "calls", "errors", "latency_sum_ms", "input_tokens", "output_tokens", "cost_usd", "estimated_calls")
SELECT "project_id", date_trunc('hour', "started_at" at time zone 'UTC') at time zone 'UTC', "span_type",
  coalesce("agent_name", ''), "server_name", "tool_name", coalesce("model_id", ''),
  count(*), count(*) filter (where "status" in ('error', 'timeout')), sum("latency_ms"),
  coalesce(sum("input_tokens"), 0), coalesce(sum("output_tokens"), 0), coalesce(sum("cost_usd"), 0), 0
FROM "spans" GROUP BY 1, 2, 3, 4, 5, 6, 7;
