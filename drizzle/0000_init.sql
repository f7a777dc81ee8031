CREATE TABLE "agents" (
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"owner" text,
	"tags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"runbook_url" text,
	"source" text DEFAULT 'auto' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	CONSTRAINT "agents_project_id_name_pk" PRIMARY KEY("project_id","name")
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "servers" (
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"owner" text,
	"tags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"runbook_url" text,
	"source" text DEFAULT 'auto' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"transport" text,
	"url" text,
	CONSTRAINT "servers_project_id_name_pk" PRIMARY KEY("project_id","name")
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
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
	"ingested_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "spans_project_id_span_id_pk" PRIMARY KEY("project_id","span_id")
);
--> statement-breakpoint
CREATE INDEX "spans_project_time_idx" ON "spans" USING btree ("project_id","started_at" DESC NULLS LAST,"span_id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "spans_trace_idx" ON "spans" USING btree ("trace_id","started_at") WHERE "spans"."trace_id" is not null;--> statement-breakpoint
CREATE INDEX "spans_session_idx" ON "spans" USING btree ("project_id","session_id","started_at") WHERE "spans"."session_id" is not null;--> statement-breakpoint
CREATE INDEX "spans_server_time_idx" ON "spans" USING btree ("project_id","server_name","started_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "spans_agent_time_idx" ON "spans" USING btree ("project_id","agent_name","started_at" DESC NULLS LAST);