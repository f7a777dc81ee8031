CREATE TABLE "security_pins" (
	"project_id" text NOT NULL,
	"server_name" text NOT NULL,
	"tool_name" text NOT NULL,
	"hash" text NOT NULL,
	"definition" jsonb NOT NULL,
	"pinned_at" timestamp with time zone NOT NULL,
	CONSTRAINT "security_pins_project_id_server_name_tool_name_pk" PRIMARY KEY("project_id","server_name","tool_name")
);
--> statement-breakpoint
ALTER TABLE "security_findings" ADD COLUMN "location" text;--> statement-breakpoint
ALTER TABLE "security_findings" ADD COLUMN "evidence" text;