import type { ProjectJson } from '../projects/projects-service.ts';
import { builder, requireAdmin } from './builder.ts';

const ProjectRef = builder.node(builder.objectRef<ProjectJson>('Project'), {
  id: { resolve: (p) => p.id },
  loadOne: (id, ctx) => ctx.services.projects.get(ctx.principal, id),
  fields: (t) => ({
    id: t.exposeString('id'),
    name: t.exposeString('name'),
    settings: t.expose('settings', { type: 'JSON' }),
    createdAt: t.field({ type: 'DateTime', resolve: (p) => new Date(p.created_at) }),
    updatedAt: t.field({ type: 'DateTime', resolve: (p) => new Date(p.updated_at) }),
  }),
});

builder.queryField('projects', (t) =>
  t.field({
    type: [ProjectRef],
    resolve: (_r, _a, ctx) => ctx.services.projects.list(ctx.principal),
  }),
);
builder.queryField('project', (t) =>
  t.field({
    type: ProjectRef,
    args: { id: t.arg.string({ required: true }) },
    resolve: (_r, a, ctx) => ctx.services.projects.get(ctx.principal, a.id),
  }),
);

builder.mutationField('createProject', (t) =>
  t.field({
    type: ProjectRef,
    args: {
      id: t.arg.string({ required: false }),
      name: t.arg.string({ required: true }),
      settings: t.arg({ type: 'JSON', required: false }),
    },
    resolve: (_r, a, ctx) => {
      requireAdmin(ctx);
      return ctx.services.projects.create(ctx.principal, {
        id: a.id ?? undefined,
        name: a.name,
        settings: a.settings ?? undefined,
      });
    },
  }),
);

builder.mutationField('deleteProject', (t) =>
  t.boolean({
    args: { id: t.arg.string({ required: true }) },
    resolve: async (_r, a, ctx) => {
      requireAdmin(ctx);
      await ctx.services.projects.delete(ctx.principal, a.id);
      return true;
    },
  }),
);

builder.mutationField('updateProject', (t) =>
  t.field({
    type: ProjectRef,
    description: 'Renames a project or replaces its settings (PATCH /api/projects/{id})',
    args: {
      id: t.arg.string({ required: true }),
      name: t.arg.string({ required: false }),
      settings: t.arg({ type: 'JSON', required: false }),
    },
    resolve: (_r, a, ctx) => {
      requireAdmin(ctx);
      return ctx.services.projects.update(ctx.principal, a.id, {
        name: a.name ?? undefined,
        settings: a.settings ?? undefined,
      });
    },
  }),
);
