/** A project as services return it (docs/auth.md#projects). */
export interface Project {
  id: string;
  name: string;
  settings: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

/** What a caller asks for when creating a project; the service checks every field. */
export interface ProjectInput {
  id?: string | undefined;
  name?: unknown;
  /** A JSON object (GraphQL's JSON scalar may carry anything: the service checks). */
  settings?: unknown;
}

/** The API's JSON for a project (GET /api/projects). */
export function toProjectJson(p: Project) {
  return {
    id: p.id,
    name: p.name,
    settings: p.settings,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}
