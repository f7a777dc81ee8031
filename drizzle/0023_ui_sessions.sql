-- Dashboard sign-ins (docs/ui.md#auth): the SHA-256 of the cookie's token, never the token; a
-- session stands for a user or for an API key (by its hash). Sliding expiry capped by an absolute one.
CREATE TABLE "ui_sessions" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"user_id" text,
	"key_hash" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"absolute_expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "ui_sessions_expires_idx" ON "ui_sessions" USING btree ("expires_at");
