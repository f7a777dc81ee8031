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
	"latency_buckets" jsonb DEFAULT '{}'::jsonb NOT NULL,
	CONSTRAINT "health_hourly_project_id_server_name_hour_pk" PRIMARY KEY("project_id","server_name","hour")
);
--> statement-breakpoint
ALTER TABLE "security_findings" ADD CONSTRAINT "security_findings_scan_id_security_scans_id_fk" FOREIGN KEY ("scan_id") REFERENCES "public"."security_scans"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "security_scans_server_time_idx" ON "security_scans" USING btree ("project_id","server_name","scanned_at");--> statement-breakpoint
CREATE INDEX "security_scans_time_idx" ON "security_scans" USING btree ("scanned_at");--> statement-breakpoint
-- health_hourly follows health_results through statement-level triggers, so every writer (checks,
-- retention, project deletion, bulk loads) keeps it exact without knowing it exists. A latency goes
-- into bucket floor(log_1.05(ms)) (0 below 1 ms); down checks and checks without latency count
-- only in checks/down_checks. The small epsilon keeps exact powers of 1.05 in their own bucket.
CREATE FUNCTION "health_hourly_bucket"(status text, latency double precision) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN status = 'down' OR latency IS NULL THEN NULL
              WHEN latency < 1 THEN 0
              ELSE floor(ln(latency) / ln(1.05) + 1e-9)::integer END
$$;
--> statement-breakpoint
CREATE FUNCTION "health_hourly_merge"(a jsonb, b jsonb, sign integer) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(jsonb_object_agg(key, n), '{}'::jsonb) FROM (
    SELECT key, sum(n) AS n FROM (
      SELECT key, value::integer AS n FROM jsonb_each_text(a)
      UNION ALL SELECT key, sign * value::integer FROM jsonb_each_text(b)
    ) u GROUP BY key
  ) s WHERE n > 0
$$;
--> statement-breakpoint
CREATE FUNCTION "health_hourly_on_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO health_hourly AS h (project_id, server_name, hour, checks, down_checks, latency_buckets)
  SELECT project_id, server_name, hour, sum(n)::integer, sum(d)::integer,
         coalesce(jsonb_object_agg(k::text, n) FILTER (WHERE k IS NOT NULL), '{}'::jsonb)
  FROM (
    SELECT r.project_id, r.server_name, date_trunc('hour', r.checked_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour,
           health_hourly_bucket(r.status, r.latency_ms) AS k, count(*) AS n, count(*) FILTER (WHERE r.status = 'down') AS d
    FROM inserted r GROUP BY 1, 2, 3, 4
  ) g GROUP BY project_id, server_name, hour
  ON CONFLICT (project_id, server_name, hour) DO UPDATE SET
    checks = h.checks + excluded.checks,
    down_checks = h.down_checks + excluded.down_checks,
    latency_buckets = health_hourly_merge(h.latency_buckets, excluded.latency_buckets, 1);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "health_hourly_on_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE health_hourly h SET
    checks = h.checks - x.checks,
    down_checks = h.down_checks - x.down_checks,
    latency_buckets = health_hourly_merge(h.latency_buckets, x.latency_buckets, -1)
  FROM (
  SELECT project_id, server_name, hour, sum(n)::integer, sum(d)::integer,
         coalesce(jsonb_object_agg(k::text, n) FILTER (WHERE k IS NOT NULL), '{}'::jsonb)
  FROM (
    SELECT r.project_id, r.server_name, date_trunc('hour', r.checked_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour,
           health_hourly_bucket(r.status, r.latency_ms) AS k, count(*) AS n, count(*) FILTER (WHERE r.status = 'down') AS d
    FROM deleted r GROUP BY 1, 2, 3, 4
  ) g GROUP BY project_id, server_name, hour
  ) AS x(project_id, server_name, hour, checks, down_checks, latency_buckets)
  WHERE h.project_id = x.project_id AND h.server_name = x.server_name AND h.hour = x.hour;
  DELETE FROM health_hourly h USING (SELECT DISTINCT project_id, server_name FROM deleted) x
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
INSERT INTO health_hourly (project_id, server_name, hour, checks, down_checks, latency_buckets)
  SELECT project_id, server_name, hour, sum(n)::integer, sum(d)::integer,
         coalesce(jsonb_object_agg(k::text, n) FILTER (WHERE k IS NOT NULL), '{}'::jsonb)
  FROM (
    SELECT r.project_id, r.server_name, date_trunc('hour', r.checked_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour,
           health_hourly_bucket(r.status, r.latency_ms) AS k, count(*) AS n, count(*) FILTER (WHERE r.status = 'down') AS d
    FROM health_results r GROUP BY 1, 2, 3, 4
  ) g GROUP BY project_id, server_name, hour;
