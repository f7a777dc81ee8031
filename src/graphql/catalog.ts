import type { CatalogEntry, CatalogKind } from '../model/catalog.ts';
import { builder } from './builder.ts';

export const CatalogEntryRef = builder.objectRef<CatalogEntry>('CatalogEntry').implement({
  description: 'An agent or server catalog entry (docs/api.md#shapes)',
  fields: (t) => ({
    name: t.exposeString('name'),
    projectId: t.exposeString('projectId'),
    description: t.exposeString('description', { nullable: true }),
    owner: t.exposeString('owner', { nullable: true }),
    tags: t.exposeStringList('tags'),
    runbookUrl: t.exposeString('runbookUrl', { nullable: true }),
    source: t.exposeString('source'),
    status: t.string({ nullable: true, resolve: (e) => e.status ?? null }),
    transport: t.string({ nullable: true, resolve: (e) => e.transport ?? null }),
    url: t.string({ nullable: true, resolve: (e) => e.url ?? null }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const CatalogInput = builder.inputType('CatalogEntryInput', {
  description: 'Fields to set; omitted fields stay as they are',
  fields: (t) => ({
    description: t.string({ required: false }),
    owner: t.string({ required: false }),
    tags: t.stringList({ required: false }),
    runbookUrl: t.string({ required: false }),
    status: t.string({ required: false, description: 'agents: active, inactive or deprecated' }),
    transport: t.string({ required: false, description: 'servers: stdio, sse or streamable_http' }),
    url: t.string({ required: false, description: 'servers' }),
  }),
});

const DiscoveryRef = builder
  .objectRef<{ discovered: number; names: string[] }>('Discovery')
  .implement({
    fields: (t) => ({ discovered: t.exposeInt('discovered'), names: t.exposeStringList('names') }),
  });

for (const [kind, plural] of [
  ['agent', 'agents'],
  ['server', 'servers'],
] as [CatalogKind, string][]) {
  const Kind = kind === 'agent' ? 'Agent' : 'Server';
  builder.queryField(plural, (t) =>
    t.field({
      type: [CatalogEntryRef],
      args: { projectId: t.arg.string({ required: false }) },
      resolve: (_r, a, ctx) => ctx.services.catalog.list(ctx.principal, kind, a.projectId),
    }),
  );
  builder.queryField(kind, (t) =>
    t.field({
      type: CatalogEntryRef,
      args: {
        name: t.arg.string({ required: true }),
        projectId: t.arg.string({ required: false }),
      },
      resolve: (_r, a, ctx) => ctx.services.catalog.get(ctx.principal, kind, a.name, a.projectId),
    }),
  );
  builder.mutationField(`put${Kind}`, (t) =>
    t.field({
      type: CatalogEntryRef,
      description: `Create or update a${kind === 'agent' ? 'n agent' : ' server'} catalog entry`,
      args: {
        name: t.arg.string({ required: true }),
        projectId: t.arg.string({ required: false }),
        input: t.arg({ type: CatalogInput, required: true }),
      },
      resolve: (_r, a, ctx) => {
        const i = a.input;
        // A null list of tags is none given: tags are cleared with [].
        const input = { ...i, tags: i.tags ?? undefined };
        return ctx.services.catalog.put(ctx.principal, kind, a.name, input, a.projectId);
      },
    }),
  );
  builder.mutationField(`delete${Kind}`, (t) =>
    t.boolean({
      args: {
        name: t.arg.string({ required: true }),
        projectId: t.arg.string({ required: false }),
      },
      resolve: async (_r, a, ctx) => {
        await ctx.services.catalog.delete(ctx.principal, kind, a.name, a.projectId);
        return true;
      },
    }),
  );
  builder.mutationField(`discover${Kind}s`, (t) =>
    t.field({
      type: DiscoveryRef,
      description: `Register ${plural} found in stored spans that the catalog lacks`,
      args: { projectId: t.arg.string({ required: false }) },
      resolve: async (_r, a, ctx) => {
        const names = await ctx.services.catalog.discover(ctx.principal, kind, a.projectId);
        return { discovered: names.length, names };
      },
    }),
  );
}
