CREATE TABLE "anomaly_states" (
	"project_id" text NOT NULL,
	"server_name" text NOT NULL,
	"tool_name" text NOT NULL,
	"metric" text NOT NULL,
	"z_score" double precision NOT NULL,
	"current_value" double precision NOT NULL,
	"baseline_value" double precision NOT NULL,
	"baseline_stddev" double precision NOT NULL,
	"sample_count" integer NOT NULL,
	"sample_hour" timestamp with time zone NOT NULL,
	"severity" text,
	"detected_at" timestamp with time zone NOT NULL,
	"since" timestamp with time zone,
	"alerted" text,
	CONSTRAINT "anomaly_states_project_id_server_name_tool_name_metric_pk" PRIMARY KEY("project_id","server_name","tool_name","metric")
);
