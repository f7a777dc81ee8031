CREATE TABLE "security_findings" (
	"scan_id" text NOT NULL,
	"seq" integer NOT NULL,
	"severity" text NOT NULL,
	"category" text NOT NULL,
	"rule" text NOT NULL,
	"kind" text NOT NULL,
	"title" text NOT NULL,
	"description" text NOT NULL,
	"remediation" text NOT NULL,
	"tool_name" text,
	"cve_id" text,
	CONSTRAINT "security_findings_scan_id_seq_pk" PRIMARY KEY("scan_id","seq")
);
--> statement-breakpoint
CREATE TABLE "security_scans" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"server_name" text NOT NULL,
	"scanned_at" timestamp with time zone NOT NULL,
	"error" text,
	"findings_count" integer NOT NULL,
	"critical_count" integer NOT NULL,
	"high_count" integer NOT NULL,
	"highest_severity" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "health_hourly" (
	"project_id" text NOT NULL,
	"server_name" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"checks" integer NOT NULL,
	"down_checks" integer NOT NULL,
	CONSTRAINT "health_hourly_project_id_server_name_hour_pk" PRIMARY KEY("project_id","server_name","hour")
);
--> statement-breakpoint
CREATE TABLE "health_latency_hourly" (
	"project_id" text NOT NULL,
	"server_name" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"bucket" integer NOT NULL,
	"checks" integer NOT NULL,
	CONSTRAINT "health_latency_hourly_project_id_server_name_hour_bucket_pk" PRIMARY KEY("project_id","server_name","hour","bucket")
);
--> statement-breakpoint
ALTER TABLE "security_findings" ADD CONSTRAINT "security_findings_scan_id_security_scans_id_fk" FOREIGN KEY ("scan_id") REFERENCES "public"."security_scans"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "security_scans_server_time_idx" ON "security_scans" USING btree ("project_id","server_name","scanned_at");--> statement-breakpoint
CREATE INDEX "security_scans_time_idx" ON "security_scans" USING btree ("scanned_at");--> statement-breakpoint
-- The hourly rollups follow health_results through statement-level triggers, so every writer
-- (checks, retention, project deletion, bulk loads) keeps them exact without knowing they exist.
-- A latency goes into bucket k covering (5000 × 1.05^(k-201), 5000 × 1.05^(k-200)] ms, so 5000 ms
-- is an exact edge (the scorecard's "p99 above 5000 ms" cap is "p99 bucket ≥ 201"); everything up
-- to ~0.29 ms is bucket 0. Down checks and checks without latency have no bucket. The epsilon keeps
-- exact edges in their own bucket despite floating-point logarithms.
CREATE FUNCTION "health_hourly_bucket"(status text, latency double precision) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN status = 'down' OR latency IS NULL THEN NULL
              ELSE greatest(0, ceil(ln(greatest(latency, 1e-6) / 5000) / ln(1.05) - 1e-9)::integer + 200) END
$$;
--> statement-breakpoint
CREATE FUNCTION "health_hourly_on_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
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
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "health_hourly_on_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE health_hourly h SET checks = h.checks - x.checks, down_checks = h.down_checks - x.down_checks
  FROM (
    SELECT project_id, server_name, date_trunc('hour', checked_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour,
           count(*) AS checks, count(*) FILTER (WHERE status = 'down') AS down_checks
    FROM deleted GROUP BY 1, 2, 3
  ) x
  WHERE h.project_id = x.project_id AND h.server_name = x.server_name AND h.hour = x.hour;
  UPDATE health_latency_hourly h SET checks = h.checks - x.checks
  FROM (
    SELECT project_id, server_name, date_trunc('hour', checked_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour,
           health_hourly_bucket(status, latency_ms) AS bucket, count(*) AS checks
    FROM deleted GROUP BY 1, 2, 3, 4
  ) x
  WHERE h.project_id = x.project_id AND h.server_name = x.server_name AND h.hour = x.hour AND h.bucket = x.bucket;
  DELETE FROM health_hourly h USING (SELECT DISTINCT project_id, server_name FROM deleted) x
  WHERE h.project_id = x.project_id AND h.server_name = x.server_name AND h.checks <= 0;
  DELETE FROM health_latency_hourly h USING (SELECT DISTINCT project_id, server_name FROM deleted) x
  WHERE h.project_id = x.project_id AND h.server_name = x.server_name AND h.checks <= 0;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "health_hourly_insert" AFTER INSERT ON "health_results" REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT EXECUTE FUNCTION health_hourly_on_insert();
--> statement-breakpoint
CREATE TRIGGER "health_hourly_delete" AFTER DELETE ON "health_results" REFERENCING OLD TABLE AS deleted
  FOR EACH STATEMENT EXECUTE FUNCTION health_hourly_on_delete();
--> statement-breakpoint
-- Existing history: one pass, through the same rules.
INSERT INTO health_hourly (project_id, server_name, hour, checks, down_checks)
SELECT project_id, server_name, date_trunc('hour', checked_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*), count(*) FILTER (WHERE status = 'down')
FROM health_results GROUP BY 1, 2, 3;
--> statement-breakpoint
INSERT INTO health_latency_hourly (project_id, server_name, hour, bucket, checks)
SELECT * FROM (
  SELECT project_id, server_name, date_trunc('hour', checked_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour,
         health_hourly_bucket(status, latency_ms) AS bucket, count(*)::integer AS checks
  FROM health_results GROUP BY 1, 2, 3, 4
) g WHERE bucket IS NOT NULL;
