CREATE TABLE "model_pricing" (
	"project_id" text NOT NULL,
	"model_id" text NOT NULL,
	"provider" text NOT NULL,
	"input_per_1m_usd" double precision NOT NULL,
	"output_per_1m_usd" double precision NOT NULL,
	"cache_read_per_1m_usd" double precision,
	"cache_write_per_1m_usd" double precision,
	"effective_from" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "model_pricing_project_id_model_id_effective_from_pk" PRIMARY KEY("project_id","model_id","effective_from")
);
