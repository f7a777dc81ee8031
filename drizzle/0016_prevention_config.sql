CREATE TABLE "prevention_configs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"agent_name" text NOT NULL,
	"loop_enabled" boolean NOT NULL,
	"loop_threshold" integer NOT NULL,
	"loop_action" text NOT NULL,
	"max_steps" integer,
	"max_cost_usd" double precision,
	"max_wall_time_s" integer,
	"budget_soft_alert" double precision,
	"cb_enabled" boolean NOT NULL,
	"cb_failure_threshold" integer NOT NULL,
	"cb_cooldown_seconds" integer NOT NULL,
	"cb_half_open_max_calls" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "prevention_configs_project_agent_idx" ON "prevention_configs" USING btree ("project_id","agent_name");