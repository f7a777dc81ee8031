-- Lineage per 4-hour UTC block beside the hourly rollup (docs/ingest.md#derived-data): a window
-- aligned to the hour reads its whole blocks here and at most 3 hours at each end from
-- lineage_hourly, 0.4-0.5 of the rows for 24 h (docs/benchmarks.md, target 5). Both keys lead with
-- the time, so a read for every project can find its blocks and hours by index, not by a scan.
CREATE TABLE "lineage_blocks" (
	"project_id" text NOT NULL,
	"block" timestamp with time zone NOT NULL,
	"edge_type" text NOT NULL,
	"source" text NOT NULL,
	"target" text NOT NULL,
	"calls" integer NOT NULL,
	"errors" integer NOT NULL,
	"latency_sum_ms" double precision NOT NULL,
	CONSTRAINT "lineage_blocks_block_project_id_edge_type_source_target_pk" PRIMARY KEY("block","project_id","edge_type","source","target")
);
--> statement-breakpoint
ALTER TABLE "lineage_hourly" DROP CONSTRAINT "lineage_hourly_project_id_hour_edge_type_source_target_pk";--> statement-breakpoint
ALTER TABLE "lineage_hourly" ADD CONSTRAINT "lineage_hourly_hour_project_id_edge_type_source_target_pk" PRIMARY KEY("hour","project_id","edge_type","source","target");--> statement-breakpoint
-- The blocks of the lineage already stored, from its hours.
INSERT INTO "lineage_blocks" ("project_id", "block", "edge_type", "source", "target", "calls", "errors", "latency_sum_ms")
SELECT "project_id", date_bin('4 hours', "hour", timestamptz '2000-01-01 00:00:00+00'), "edge_type", "source", "target",
       sum("calls"), sum("errors"), sum("latency_sum_ms")
FROM "lineage_hourly"
GROUP BY 1, 2, 3, 4, 5;
