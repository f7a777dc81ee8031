import { Type as T } from 'typebox';
import { section } from './schema-kit.ts';

/** The lists of entries of src/config/schema.ts (file only: no environment variables). */

export const COSTS = section(
  {
    rules: T.Array(
      T.Object(
        {
          server: T.String({
            minLength: 1,
            default: '*',
            expect: 'a glob such as "github" or "*"',
            description: 'glob on the server name',
          }),
          tool: T.String({
            minLength: 1,
            default: '*',
            expect: 'a glob such as "create_*" or "*"',
            description: 'glob on the tool name',
          }),
          cost_usd: T.Number({
            minimum: 0,
            expect: 'a number of dollars per call, 0 or more',
            description: 'USD per call',
          }),
        },
        { additionalProperties: false },
      ),
      {
        default: [],
        description: 'what a tool call costs: `{server, tool, cost_usd}`, first match wins',
      },
    ),
  },
  'Costs (docs/costs.md#how-a-span-is-priced)',
);

export const TRANSPORTS = ['stdio', 'sse', 'streamable_http'] as const;

export const SERVERS = T.Array(
  T.Object(
    {
      name: T.String({ minLength: 1, description: 'unique among servers[]' }),
      transport: T.Enum([...TRANSPORTS], { description: 'how the server is reached' }),
      command: T.Optional(T.String({ minLength: 1, description: 'required for stdio' })),
      args: T.Optional(T.Array(T.String(), { description: "the command's arguments" })),
      env: T.Optional(T.Record(T.String(), T.String(), { description: 'its environment' })),
      url: T.Optional(
        T.String({ minLength: 1, description: 'required for sse and streamable_http' }),
      ),
      headers: T.Optional(
        T.Record(T.String(), T.String(), { description: 'HTTP headers sent to it' }),
      ),
      health_check_interval_seconds: T.Optional(
        T.Integer({
          minimum: 1,
          maximum: 86_400,
          description: "this server's interval; `monitor.health_check_interval_seconds` if unset",
        }),
      ),
      health_check_timeout_seconds: T.Optional(
        T.Number({ minimum: 0.1, maximum: 3600, description: 'whole-check deadline [5]' }),
      ),
      timeout_seconds: T.Optional(
        T.Number({
          minimum: 0.1,
          maximum: 3600,
          description: 'the same; `health_check_timeout_seconds` wins',
        }),
      ),
      health_tool: T.Optional(
        T.String({ minLength: 1, description: 'a tool to call in the check' }),
      ),
      health_tool_args: T.Optional(
        T.Record(T.String(), T.Unknown(), { description: "that tool's arguments" }),
      ),
    },
    { additionalProperties: false },
  ),
  { default: [], description: 'MCP servers to health-check (docs/health.md#configuring-servers)' },
);
