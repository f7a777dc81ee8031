-- Sessions count the tool calls a guard blocked (status prevented), which are neither successes
-- nor failures; existing sessions are counted from their stored spans (prevented spans are few).
ALTER TABLE "sessions" ADD COLUMN "prevented_calls" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
UPDATE "sessions" AS s SET "prevented_calls" = p.n
FROM (
  SELECT "project_id", coalesce("session_id", "trace_id") AS skey, count(*)::int AS n
  FROM "spans" WHERE "status" = 'prevented' AND "span_type" = 'tool_call'
  GROUP BY 1, 2
) p
WHERE s."project_id" = p."project_id" AND s."session_id" = p.skey;
