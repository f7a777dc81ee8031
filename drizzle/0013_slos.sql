CREATE TABLE "slo_states" (
	"slo_id" uuid PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"status" text,
	"current_value" double precision,
	"sample_size" integer NOT NULL,
	"evaluated_at" timestamp with time zone,
	"changed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "slos" (
	"slo_id" uuid PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"agent_name" text NOT NULL,
	"metric" text NOT NULL,
	"threshold" double precision NOT NULL,
	"window_hours" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "slo_states" ADD CONSTRAINT "slo_states_slo_id_slos_slo_id_fk" FOREIGN KEY ("slo_id") REFERENCES "public"."slos"("slo_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "slos_project_idx" ON "slos" USING btree ("project_id","created_at","slo_id");