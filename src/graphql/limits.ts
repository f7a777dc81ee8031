import { costLimitPlugin, costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import {
  GraphQLError,
  Kind,
  Lexer,
  Source,
  TokenKind,
  TypeInfo,
  validate,
  visit,
  visitWithTypeInfo,
  type ArgumentNode,
  type DocumentNode,
  type ExecutionArgs,
  type FieldNode,
  type GraphQLSchema,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { MAX_BODY_DEPTH } from '../normalize/json-limits.ts';

type RejectCallback = NonNullable<
  NonNullable<Parameters<typeof costLimitPlugin>[0]>['onReject']
>[number];

export const QUERY_LIMITS = { depth: 8, cost: 5000, aliases: 15 };
/** What a connection without `first` (or with a `first` variable not given) counts as: the largest default page. */
export const DEFAULT_PAGE = 100;

/**
 * Depth, cost and alias limits (graphql-armor), each refusal a GraphQL error with its own
 * `extensions.code` (armor's own errors all read "Syntax Error: ..."). Cost multiplies a list by
 * its `first`; armor sees only literal numbers, so the cost is checked again before execution
 * with `first` variables filled in and a missing `first` counted as DEFAULT_PAGE.
 */
export function queryLimits(): Plugin[] {
  return [
    { onParse: ({ params }) => checkNesting(String(params.source?.body ?? params.source)) },
    maxDepthPlugin({
      n: QUERY_LIMITS.depth,
      propagateOnRejection: false,
      onReject: [report('QUERY_TOO_DEEP')],
    }),
    costLimitPlugin({
      maxCost: QUERY_LIMITS.cost,
      propagateOnRejection: false,
      onReject: [report('QUERY_TOO_COSTLY')],
    }),
    maxAliasesPlugin({
      n: QUERY_LIMITS.aliases,
      propagateOnRejection: false,
      onReject: [report('TOO_MANY_ALIASES')],
    }),
    {
      onExecute: ({ args, setResultAndStopExecution }) => {
        const errors = costWithPages(args);
        if (errors.length > 0) setResultAndStopExecution({ errors });
      },
      onSubscribe: ({ args, setResultAndStopExecution }) => {
        const errors = costWithPages(args);
        if (errors.length > 0) setResultAndStopExecution({ errors });
      },
    },
  ];
}

/**
 * Refuses query text whose brackets nest deeper than MAX_BODY_DEPTH before graphql-js parses it:
 * its parser recurses once per level, so `[[[…]]]` 10,000 deep (a JSON argument) overflowed the
 * stack and answered an internal error. graphql-js's own lexer (a loop) reads the tokens, so
 * strings, block strings and comments count exactly as the parser will see them.
 */
function checkNesting(text: string): void {
  const lexer = new Lexer(new Source(text));
  let depth = 0;
  try {
    for (let t = lexer.advance(); t.kind !== TokenKind.EOF; t = lexer.advance()) {
      if (
        t.kind === TokenKind.BRACE_L ||
        t.kind === TokenKind.BRACKET_L ||
        t.kind === TokenKind.PAREN_L
      )
        depth++;
      else if (
        t.kind === TokenKind.BRACE_R ||
        t.kind === TokenKind.BRACKET_R ||
        t.kind === TokenKind.PAREN_R
      )
        depth--;
      if (depth > MAX_BODY_DEPTH) break;
    }
  } catch {
    return; // A syntax error: parse() reports it where it is.
  }
  if (depth > MAX_BODY_DEPTH)
    throw new GraphQLError(`Query nests brackets deeper than ${MAX_BODY_DEPTH} levels`, {
      extensions: { code: 'QUERY_TOO_DEEP' },
    });
}

function report(code: string): RejectCallback {
  return (ctx, err) =>
    ctx?.reportError(
      new GraphQLError(err.message.replace(/^Syntax Error: /, ''), { extensions: { code } }),
    );
}

function costWithPages(args: ExecutionArgs): readonly GraphQLError[] {
  const document = withPageSizes(args.schema, args.document, args.variableValues ?? {});
  if (document === args.document) return [];
  const errors: GraphQLError[] = [];
  validate(args.schema, document, [
    costLimitRule({
      maxCost: QUERY_LIMITS.cost,
      propagateOnRejection: false,
      onReject: [(_c, e) => void errors.push(e)],
    }),
  ]);
  return errors.map(
    (e) =>
      new GraphQLError(
        `${e.message.replace(/^Syntax Error: /, '')} (with page sizes from variables and defaults)`,
        { extensions: { code: 'QUERY_TOO_COSTLY' } },
      ),
  );
}

/** The document with every connection's `first` as a literal: from variables, else DEFAULT_PAGE. */
function withPageSizes(
  schema: GraphQLSchema,
  doc: DocumentNode,
  vars: Readonly<Record<string, unknown>>,
): DocumentNode {
  const typeInfo = new TypeInfo(schema);
  let changed = false;
  const result = visit(
    doc,
    visitWithTypeInfo(typeInfo, {
      Field(node: FieldNode) {
        if (!typeInfo.getFieldDef()?.args.some((a) => a.name === 'first')) return undefined;
        const args = node.arguments ?? [];
        const given = args.find((a) => a.name.value === 'first');
        if (given && given.value.kind !== Kind.VARIABLE) return undefined;
        const v = given?.value.kind === Kind.VARIABLE ? vars[given.value.name.value] : undefined;
        const n =
          typeof v === 'number' && Number.isFinite(v) ? Math.max(1, Math.trunc(v)) : DEFAULT_PAGE;
        const first: ArgumentNode = {
          kind: Kind.ARGUMENT,
          name: { kind: Kind.NAME, value: 'first' },
          value: { kind: Kind.INT, value: String(n) },
        };
        changed = true;
        return { ...node, arguments: [first, ...args.filter((a) => a !== given)] };
      },
    }),
  );
  return changed ? result : doc;
}
