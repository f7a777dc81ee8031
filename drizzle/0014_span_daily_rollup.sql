CREATE TABLE "span_daily" (
	"project_id" text NOT NULL,
	"span_type" text NOT NULL,
	"agent_name" text NOT NULL,
	"server_name" text NOT NULL,
	"tool_name" text NOT NULL,
	"model_id" text NOT NULL,
	"day" timestamp with time zone NOT NULL,
	"calls" integer NOT NULL,
	"errors" integer NOT NULL,
	"latency_sum_ms" double precision NOT NULL,
	"input_tokens" bigint NOT NULL,
	"output_tokens" bigint NOT NULL,
	"cost_usd" double precision NOT NULL,
	"estimated_calls" integer NOT NULL,
	CONSTRAINT "span_daily_project_id_day_span_type_agent_name_server_name_tool_name_model_id_pk" PRIMARY KEY("project_id","day","span_type","agent_name","server_name","tool_name","model_id")
);
--> statement-breakpoint
-- span_hourly now keeps '' as the tool of agent and handoff spans (their free-text task
-- descriptions gave every span its own row): rebuild it from the stored spans, then the days from it.
DELETE FROM "span_hourly";
--> statement-breakpoint
INSERT INTO "span_hourly" ("project_id", "hour", "span_type", "agent_name", "server_name", "tool_name", "model_id",
  "calls", "errors", "latency_sum_ms", "input_tokens", "output_tokens", "cost_usd", "estimated_calls")
SELECT "project_id", date_trunc('hour', "started_at" at time zone 'UTC') at time zone 'UTC', "span_type",
  coalesce("agent_name", ''), "server_name", CASE WHEN "span_type" = 'tool_call' THEN "tool_name" ELSE '' END, coalesce("model_id", ''),
  count(*), count(*) filter (where "status" in ('error', 'timeout')), sum("latency_ms"),
  coalesce(sum("input_tokens"), 0), coalesce(sum("output_tokens"), 0), coalesce(sum("cost_usd"), 0),
  count(*) filter (where "cost_estimated")
FROM "spans" GROUP BY 1, 2, 3, 4, 5, 6, 7;
--> statement-breakpoint
INSERT INTO "span_daily" ("project_id", "day", "span_type", "agent_name", "server_name", "tool_name", "model_id",
  "calls", "errors", "latency_sum_ms", "input_tokens", "output_tokens", "cost_usd", "estimated_calls")
SELECT "project_id", date_trunc('day', "hour" at time zone 'UTC') at time zone 'UTC', "span_type", "agent_name", "server_name",
  "tool_name", "model_id", sum("calls"), sum("errors"), sum("latency_sum_ms"), sum("input_tokens"), sum("output_tokens"),
  sum("cost_usd"), sum("estimated_calls")
FROM "span_hourly" GROUP BY 1, 2, 3, 4, 5, 6, 7;
