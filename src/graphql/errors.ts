import { GraphQLError } from 'graphql';
import type { SpyglassError } from '../errors.ts';

// Re-exported for modules that load this one lazily: the bundle gives a dynamic import of a
// CommonJS package (graphql) no named exports (docs/architecture.md#the-build).
export { GraphQLError };

/** A SpyglassError as GraphQL reports it: its code and HTTP status in `extensions`. */
export function toGraphQLError(err: SpyglassError): GraphQLError {
  return new GraphQLError(err.message, {
    extensions: {
      code: err.code.toUpperCase(),
      status: err.status,
      ...(err.issues ? { issues: err.issues } : {}),
    },
  });
}
