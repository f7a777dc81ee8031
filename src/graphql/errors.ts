import { GraphQLError } from 'graphql';
import type { SpyglassError } from '../errors.ts';

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
