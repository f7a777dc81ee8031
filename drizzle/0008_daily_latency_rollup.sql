CREATE TABLE "health_latency_daily" (
	"project_id" text NOT NULL,
	"server_name" text NOT NULL,
	"day" timestamp with time zone NOT NULL,
	"bucket" integer NOT NULL,
	"checks" integer NOT NULL,
	CONSTRAINT "health_latency_daily_project_id_server_name_day_bucket_pk" PRIMARY KEY("project_id","server_name","day","bucket")
);
--> statement-breakpoint
-- The daily latency rollup follows health_results through the same statement triggers as the
-- hourly ones (0007), so checks, retention, project deletion and bulk loads keep all three exact.
-- The functions are replaced whole; the triggers that call them stay as they are.
CREATE OR REPLACE FUNCTION "health_hourly_on_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO health_hourly AS h (project_id, server_name, hour, checks, down_checks)
  SELECT project_id, server_name, date_trunc('hour', checked_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
         count(*), count(*) FILTER (WHERE status = 'down')
  FROM inserted GROUP BY 1, 2, 3
  ON CONFLICT (project_id, server_name, hour) DO UPDATE SET
    checks = h.checks + excluded.checks, down_checks = h.down_checks + excluded.down_checks;
  INSERT INTO health_latency_hourly AS h (project_id, server_name, hour, bucket, checks)
  SELECT * FROM (
    SELECT project_id, server_name, date_trunc('hour', checked_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour,
           health_hourly_bucket(status, latency_ms) AS bucket, count(*)::integer AS checks
    FROM inserted GROUP BY 1, 2, 3, 4
  ) g WHERE bucket IS NOT NULL
  ON CONFLICT (project_id, server_name, hour, bucket) DO UPDATE SET checks = h.checks + excluded.checks;
  INSERT INTO health_latency_daily AS d (project_id, server_name, day, bucket, checks)
  SELECT * FROM (
    SELECT project_id, server_name, date_trunc('day', checked_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS day,
           health_hourly_bucket(status, latency_ms) AS bucket, count(*)::integer AS checks
    FROM inserted GROUP BY 1, 2, 3, 4
  ) g WHERE bucket IS NOT NULL
  ON CONFLICT (project_id, server_name, day, bucket) DO UPDATE SET checks = d.checks + excluded.checks;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Deletes drop the rollup rows they empty and subtract from the others, touching only the rows of
-- the removed checks' hours and days (0007 looked at every row of each affected server, which
-- grows with the history kept). Two statements per table: a row that a statement updates cannot
-- also be deleted by it.
CREATE OR REPLACE FUNCTION "health_hourly_on_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM health_hourly h USING (
    SELECT project_id, server_name, date_trunc('hour', checked_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour, count(*) AS checks, count(*) FILTER (WHERE status = 'down') AS down_checks
    FROM deleted GROUP BY 1, 2, 3
  ) x WHERE h.project_id = x.project_id AND h.server_name = x.server_name AND h.hour = x.hour AND h.checks <= x.checks;
  UPDATE health_hourly h SET checks = h.checks - x.checks, down_checks = h.down_checks - x.down_checks FROM (
    SELECT project_id, server_name, date_trunc('hour', checked_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour, count(*) AS checks, count(*) FILTER (WHERE status = 'down') AS down_checks
    FROM deleted GROUP BY 1, 2, 3
  ) x WHERE h.project_id = x.project_id AND h.server_name = x.server_name AND h.hour = x.hour;
  DELETE FROM health_latency_hourly h USING (
  SELECT * FROM (
    SELECT project_id, server_name, date_trunc('hour', checked_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour, health_hourly_bucket(status, latency_ms) AS bucket, count(*) AS checks
    FROM deleted GROUP BY 1, 2, 3, 4
  ) g WHERE bucket IS NOT NULL
  ) x WHERE h.project_id = x.project_id AND h.server_name = x.server_name AND h.hour = x.hour AND h.bucket = x.bucket AND h.checks <= x.checks;
  UPDATE health_latency_hourly h SET checks = h.checks - x.checks FROM (
  SELECT * FROM (
    SELECT project_id, server_name, date_trunc('hour', checked_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour, health_hourly_bucket(status, latency_ms) AS bucket, count(*) AS checks
    FROM deleted GROUP BY 1, 2, 3, 4
  ) g WHERE bucket IS NOT NULL
  ) x WHERE h.project_id = x.project_id AND h.server_name = x.server_name AND h.hour = x.hour AND h.bucket = x.bucket;
  DELETE FROM health_latency_daily d USING (
  SELECT * FROM (
    SELECT project_id, server_name, date_trunc('day', checked_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS day, health_hourly_bucket(status, latency_ms) AS bucket, count(*) AS checks
    FROM deleted GROUP BY 1, 2, 3, 4
  ) g WHERE bucket IS NOT NULL
  ) x WHERE d.project_id = x.project_id AND d.server_name = x.server_name AND d.day = x.day AND d.bucket = x.bucket AND d.checks <= x.checks;
  UPDATE health_latency_daily d SET checks = d.checks - x.checks FROM (
  SELECT * FROM (
    SELECT project_id, server_name, date_trunc('day', checked_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS day, health_hourly_bucket(status, latency_ms) AS bucket, count(*) AS checks
    FROM deleted GROUP BY 1, 2, 3, 4
  ) g WHERE bucket IS NOT NULL
  ) x WHERE d.project_id = x.project_id AND d.server_name = x.server_name AND d.day = x.day AND d.bucket = x.bucket;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Existing history: one pass, through the same rules.
INSERT INTO health_latency_daily (project_id, server_name, day, bucket, checks)
SELECT * FROM (
  SELECT project_id, server_name, date_trunc('day', checked_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS day,
         health_hourly_bucket(status, latency_ms) AS bucket, count(*)::integer AS checks
  FROM health_results GROUP BY 1, 2, 3, 4
) g WHERE bucket IS NOT NULL;
