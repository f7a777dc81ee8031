import type { Project } from '../model/project.ts';
import { builder } from './builder.ts';

/** Projects (docs/auth.md#projects): the same service and rules as /api/projects. */
const ProjectRef = builder.node(builder.objectRef<Project>('Project'), {
  id: { resolve: (p) => p.id },
  loadOne: (id, ctx) => ctx.services.projects.get(ctx.principal, id),
  fields: (t) => ({
    id: t.exposeString('id'),
    name: t.exposeString('name'),
    settings: t.expose('settings', { type: 'JSON' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
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
    resolve: (_r, a, ctx) =>
      ctx.services.projects.create(ctx.principal, {
        id: a.id ?? undefined,
        name: a.name,
        settings: a.settings ?? undefined,
      }),
  }),
);

builder.mutationField('deleteProject', (t) =>
  t.boolean({
    args: { id: t.arg.string({ required: true }) },
    resolve: async (_r, a, ctx) => {
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
    resolve: (_r, a, ctx) =>
      ctx.services.projects.update(ctx.principal, a.id, {
        name: a.name ?? undefined,
        settings: a.settings ?? undefined,
      }),
  }),
);
