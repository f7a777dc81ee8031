import { GraphQLError, getOperationAST, getVariableValues, type ExecutionArgs } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * Variables of the wrong type are the client's error: `BAD_USER_INPUT`, never logged. graphql-js
 * coerces variables inside `execute` and wraps each refusal around the scalar's own error, so the
 * error masking (which lets through only GraphQL errors without an `originalError`) took them for
 * a crash: "Unexpected error." and an error log with a stack. Coercing them here first, with the
 * same rules, answers every operation (query, mutation, subscription; HTTP, SSE and WebSocket)
 * before any resolver or limit sees the variables.
 */
export function variableCoercion(): Plugin {
  return {
    onExecute: ({ args, setResultAndStopExecution }) => {
      const errors = coercionErrors(args);
      if (errors.length > 0) setResultAndStopExecution({ errors });
    },
    onSubscribe: ({ args, setResultAndStopExecution }) => {
      const errors = coercionErrors(args);
      if (errors.length > 0) setResultAndStopExecution({ errors });
    },
  };
}

function coercionErrors(args: ExecutionArgs): GraphQLError[] {
  const operation = getOperationAST(args.document, args.operationName);
  // No single operation: execute() itself answers with a plain (unmasked) GraphQL error.
  if (!operation) return [];
  const result = getVariableValues(
    args.schema,
    operation.variableDefinitions ?? [],
    args.variableValues ?? {},
    { maxErrors: 10 },
  );
  return (result.errors ?? []).map(
    (e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { code: 'BAD_USER_INPUT' } }),
  );
}
