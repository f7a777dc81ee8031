DROP INDEX "audit_logs_time_idx";--> statement-breakpoint
DROP INDEX "sessions_project_last_idx";--> statement-breakpoint
DROP INDEX "sessions_agent_last_idx";--> statement-breakpoint
DROP INDEX "spans_project_time_idx";--> statement-breakpoint
DROP INDEX "spans_server_time_idx";--> statement-breakpoint
DROP INDEX "spans_agent_time_idx";--> statement-breakpoint
DROP INDEX "drift_events_server_time_idx";--> statement-breakpoint
DROP INDEX "health_results_server_time_idx";--> statement-breakpoint
CREATE INDEX "sessions_last_idx" ON "sessions" USING btree ("last_call_at","session_id");--> statement-breakpoint
CREATE INDEX "sessions_id_idx" ON "sessions" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "spans_time_idx" ON "spans" USING btree ("started_at","span_id");--> statement-breakpoint
CREATE INDEX "audit_logs_time_idx" ON "audit_logs" USING btree ("timestamp","event_id");--> statement-breakpoint
CREATE INDEX "sessions_project_last_idx" ON "sessions" USING btree ("project_id","last_call_at","session_id");--> statement-breakpoint
CREATE INDEX "sessions_agent_last_idx" ON "sessions" USING btree ("project_id","agent_name","last_call_at","session_id");--> statement-breakpoint
CREATE INDEX "spans_project_time_idx" ON "spans" USING btree ("project_id","started_at","span_id");--> statement-breakpoint
CREATE INDEX "spans_server_time_idx" ON "spans" USING btree ("project_id","server_name","started_at");--> statement-breakpoint
CREATE INDEX "spans_agent_time_idx" ON "spans" USING btree ("project_id","agent_name","started_at");--> statement-breakpoint
CREATE INDEX "drift_events_server_time_idx" ON "drift_events" USING btree ("project_id","server_name","detected_at");--> statement-breakpoint
CREATE INDEX "health_results_server_time_idx" ON "health_results" USING btree ("project_id","server_name","checked_at");