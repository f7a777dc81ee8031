import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import { SpyglassError } from '../errors.ts';
import { acceptNativeBatch } from '../ingest/accept-native.ts';
import { builder } from './builder.ts';

const IngestResultRef = builder
  .objectRef<{ stored: number; duplicates: number }>('IngestResult')
  .implement({
    fields: (t) => ({
      accepted: t.exposeInt('stored', { description: 'Spans newly stored' }),
      duplicates: t.exposeInt('duplicates', {
        description: 'Spans the project already had (sent again)',
      }),
    }),
  });

builder.mutationField('ingestSpans', (t) =>
  t.field({
    type: IngestResultRef,
    description:
      'Stores a batch of spans in the native JSON form (the body of POST /api/traces/spans); resolves once they are committed',
    args: {
      spans: t.arg({
        type: ['JSON'],
        required: true,
        description: 'Span objects with the native (snake_case) fields',
      }),
    },
    resolve: (_r, a, ctx, info) => {
      // One variable named by many aliases would store one body many times over: one batch per request.
      if (countField(info, info.operation.selectionSet, info.fieldName) > 1) {
        throw new SpyglassError(
          'validation',
          `${info.fieldName} may appear once per request; send one batch`,
        );
      }
      return acceptNativeBatch(
        { maxBatchSpans: ctx.services.config.ingest.maxBatchSpans, ingest: ctx.services.ingest },
        ctx.principal,
        a.spans,
      );
    },
  }),
);

/** How often a root field is selected, aliases and fragments included. */
function countField(info: GraphQLResolveInfo, set: SelectionSetNode, name: string): number {
  let n = 0;
  for (const sel of set.selections) {
    if (sel.kind === Kind.FIELD) n += sel.name.value === name ? 1 : 0;
    else if (sel.kind === Kind.INLINE_FRAGMENT) n += countField(info, sel.selectionSet, name);
    else {
      const fragment = info.fragments[sel.name.value];
      if (fragment) n += countField(info, fragment.selectionSet, name);
    }
  }
  return n;
}
