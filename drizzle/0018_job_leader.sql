CREATE TABLE "job_leader" (
	"name" text PRIMARY KEY NOT NULL,
	"token" bigint NOT NULL,
	"holder" text NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
