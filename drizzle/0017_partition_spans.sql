-- Spans become a table partitioned by day (UTC) on started_at, so retention drops whole days
-- instead of deleting rows. A partition key must be part of every unique constraint: the primary
-- key becomes (project_id, span_id, started_at). A retried export carries the same start time, so
-- it is still stored once; the same span id sent again with another start time is a second row.
-- The day partitions are named spans_pYYYYMMDD; spans_default takes any time outside them.
ALTER TABLE "spans" RENAME TO "spans_unpartitioned";
--> statement-breakpoint
ALTER TABLE "spans_unpartitioned" DROP CONSTRAINT "spans_project_id_span_id_pk";
--> statement-breakpoint
DROP INDEX "spans_project_time_idx";
--> statement-breakpoint
DROP INDEX "spans_time_idx";
--> statement-breakpoint
DROP INDEX "spans_trace_idx";
--> statement-breakpoint
DROP INDEX "spans_session_idx";
--> statement-breakpoint
DROP INDEX "spans_sessionless_trace_idx";
--> statement-breakpoint
DROP INDEX "spans_server_time_idx";
--> statement-breakpoint
DROP INDEX "spans_agent_time_idx";
--> statement-breakpoint
CREATE TABLE "spans" (
	"project_id" text NOT NULL,
	"span_id" text NOT NULL,
	"trace_id" text,
	"parent_span_id" text,
	"session_id" text,
	"span_type" text NOT NULL,
	"server_name" text NOT NULL,
	"tool_name" text NOT NULL,
	"agent_name" text,
	"status" text NOT NULL,
	"error" text,
	"started_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone NOT NULL,
	"latency_ms" double precision NOT NULL,
	"input_args" jsonb,
	"output_result" text,
	"llm_input" text,
	"llm_output" text,
	"input_tokens" integer,
	"output_tokens" integer,
	"model_id" text,
	"health_tag" text,
	"cost_usd" double precision,
	"cost_estimated" boolean,
	"ingested_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "spans_project_id_span_id_started_at_pk" PRIMARY KEY("project_id","span_id","started_at")
) PARTITION BY RANGE ("started_at");
--> statement-breakpoint
CREATE TABLE "spans_default" PARTITION OF "spans" DEFAULT;
--> statement-breakpoint
-- A partition for each day holding spans within the last 400 days or the next 7, and for today
-- .. today+7 (the maintenance job keeps creating them ahead); older or later rows go to default.
DO $$
DECLARE d date;
BEGIN
  FOR d IN
    SELECT DISTINCT ("started_at" AT TIME ZONE 'UTC')::date FROM "spans_unpartitioned"
      WHERE "started_at" >= (((now() AT TIME ZONE 'UTC')::date - 400)::timestamp AT TIME ZONE 'UTC')
        AND "started_at" < (((now() AT TIME ZONE 'UTC')::date + 8)::timestamp AT TIME ZONE 'UTC')
    UNION
    SELECT ((now() AT TIME ZONE 'UTC')::date + i) FROM generate_series(0, 7) AS i
  LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF "spans" FOR VALUES FROM (%L) TO (%L)',
      'spans_p' || to_char(d, 'YYYYMMDD'), d::text || ' 00:00:00+00', (d + 1)::text || ' 00:00:00+00');
  END LOOP;
END $$;
--> statement-breakpoint
INSERT INTO "spans" ("project_id", "span_id", "trace_id", "parent_span_id", "session_id", "span_type", "server_name",
  "tool_name", "agent_name", "status", "error", "started_at", "ended_at", "latency_ms", "input_args", "output_result",
  "llm_input", "llm_output", "input_tokens", "output_tokens", "model_id", "health_tag", "cost_usd", "cost_estimated", "ingested_at")
SELECT "project_id", "span_id", "trace_id", "parent_span_id", "session_id", "span_type", "server_name",
  "tool_name", "agent_name", "status", "error", "started_at", "ended_at", "latency_ms", "input_args", "output_result",
  "llm_input", "llm_output", "input_tokens", "output_tokens", "model_id", "health_tag", "cost_usd", "cost_estimated", "ingested_at"
FROM "spans_unpartitioned";
--> statement-breakpoint
DROP TABLE "spans_unpartitioned";
--> statement-breakpoint
-- The same indexes as before, created on the parent (each partition gets its own); after the copy,
-- so the rows are indexed once in bulk.
CREATE INDEX "spans_project_time_idx" ON "spans" USING btree ("project_id","started_at","span_id");
--> statement-breakpoint
CREATE INDEX "spans_time_idx" ON "spans" USING btree ("started_at","span_id");
--> statement-breakpoint
CREATE INDEX "spans_trace_idx" ON "spans" USING btree ("trace_id","started_at") WHERE "spans"."trace_id" is not null;
--> statement-breakpoint
CREATE INDEX "spans_session_idx" ON "spans" USING btree ("project_id","session_id","started_at") WHERE "spans"."session_id" is not null;
--> statement-breakpoint
CREATE INDEX "spans_sessionless_trace_idx" ON "spans" USING btree ("project_id","trace_id","started_at") WHERE "spans"."session_id" is null;
--> statement-breakpoint
CREATE INDEX "spans_server_time_idx" ON "spans" USING btree ("project_id","server_name","started_at");
--> statement-breakpoint
CREATE INDEX "spans_agent_time_idx" ON "spans" USING btree ("project_id","agent_name","started_at");
