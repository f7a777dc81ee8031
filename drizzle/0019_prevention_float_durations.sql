-- Durations in seconds may be fractional (max_wall_time_s 30.5, cb_cooldown_seconds 1.5): LangSight's
-- SDK sends floats. Every stored integer converts exactly.
ALTER TABLE "prevention_configs" ALTER COLUMN "max_wall_time_s" SET DATA TYPE double precision;
--> statement-breakpoint
ALTER TABLE "prevention_configs" ALTER COLUMN "cb_cooldown_seconds" SET DATA TYPE double precision;
