import { describe, expectTypeOf, it } from 'vitest';
import type { AppDeps } from '../../src/app.ts';
import type { GraphqlServices } from '../../src/graphql/builder.ts';
import type { AuthHookDeps } from '../../src/http/auth-hook.ts';
import type { NativeReceiverDeps } from '../../src/receivers/native-http.ts';
import type { GrpcAdmitDeps, GrpcExportDeps } from '../../src/receivers/otlp-grpc-admit.ts';
import type { OtlpHttpReceiverDeps } from '../../src/receivers/otlp-http.ts';
import type { HealthRoutesDeps } from '../../src/rest/health-routes.ts';
import type { ProbesDeps } from '../../src/rest/probes.ts';
import type { TracesRoutesDeps } from '../../src/rest/traces-routes.ts';
import type { Services } from '../../src/services.ts';

/**
 * Checked by `tsc` (npm run check), not at run time: each module the HTTP app registers names the
 * services it uses (docs/architecture.md#the-data-flow), and its parameter refuses any other.
 */
describe('the HTTP modules get only what they use', () => {
  it('each deps type names its services and nothing else', () => {
    expectTypeOf<keyof TracesRoutesDeps>().toEqualTypeOf<'spans'>();
    expectTypeOf<keyof HealthRoutesDeps>().toEqualTypeOf<'health' | 'observedTools' | 'scoring'>();
    expectTypeOf<keyof ProbesDeps>().toEqualTypeOf<'store'>();
    expectTypeOf<keyof AuthHookDeps>().toEqualTypeOf<'auth'>();
    expectTypeOf<keyof NativeReceiverDeps>().toEqualTypeOf<
      'config' | 'ingest' | 'writer' | 'rateLimitWarnings' | 'slices'
    >();
    expectTypeOf<keyof OtlpHttpReceiverDeps>().toEqualTypeOf<
      'config' | 'ingest' | 'metrics' | 'ignoredSpans' | 'rateLimitWarnings' | 'slices'
    >();
  });

  it('the OTLP/gRPC receiver (started by src/main.ts, outside the HTTP app) is held the same way', () => {
    expectTypeOf<keyof GrpcAdmitDeps>().toEqualTypeOf<
      'config' | 'limiter' | 'rateLimitWarnings' | 'auth'
    >();
    expectTypeOf<keyof GrpcExportDeps>().toEqualTypeOf<
      'config' | 'ingest' | 'metrics' | 'ignoredSpans' | 'rateLimitWarnings'
    >();
    expectTypeOf<Services>().toExtend<GrpcAdmitDeps & GrpcExportDeps>();
  });

  it('a route module cannot reach a service it does not declare', () => {
    const reach = (s: TracesRoutesDeps) =>
      // @ts-expect-error TracesRoutesDeps has no alerts
      s.alerts;
    expectTypeOf(reach).toBeFunction();
  });

  it('GraphQL resolvers reach many services but not the ingest pipeline internals', () => {
    expectTypeOf<GraphqlServices>().not.toHaveProperty('writer');
    expectTypeOf<GraphqlServices>().not.toHaveProperty('registrar');
    expectTypeOf<GraphqlServices>().not.toHaveProperty('keys');
    expectTypeOf<GraphqlServices>().not.toHaveProperty('close');
  });

  it('the services createServices builds are all the app needs', () => {
    expectTypeOf<Services>().toExtend<AppDeps>();
  });
});
