-- The `default` project exists from the first start (decisions §2); settings start with their defaults.
INSERT INTO "projects" ("id", "name") VALUES ('default', 'Default') ON CONFLICT DO NOTHING;
--> statement-breakpoint
INSERT INTO "settings" ("key", "value") VALUES ('redact_payloads', 'false'::jsonb) ON CONFLICT DO NOTHING;
