import { afterAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/audit/audit-log.ts';
import { LOCAL_ADMIN } from '../../src/auth/principal.ts';
import { SpyglassError } from '../../src/errors.ts';
import { PreventionService } from '../../src/prevention/config-service.ts';
import { useRepoStore } from '../helpers/repo-store.ts';

/**
 * PreventionService checks the whole config a write results in, so REST (either shape), GraphQL
 * and the CLI refuse the same writes with the same issues, and audit each change once.
 */
describe('PreventionService', () => {
  const db = useRepoStore('pglite');
  let audit: AuditLog | undefined;
  const service = () => {
    audit ??= new AuditLog(db());
    return new PreventionService({ db: db(), audit });
  };
  afterAll(async () => audit?.close());
  const locs = async (p: Promise<unknown>) => {
    const err = await p.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SpyglassError);
    return (err as SpyglassError).issues?.map((i) => i.loc.join('.'));
  };
  const scope = { agentName: 'svc-agent' };

  it('reads a soft alert amount against the stored max, and checks the result as a whole', async () => {
    await service().replace(LOCAL_ADMIN, scope, { fields: { max_cost_usd: 10 } });
    const updated = await service().update(LOCAL_ADMIN, scope, { fields: {}, softAlertUsd: 4 });
    expect(updated.config).toMatchObject({ max_cost_usd: 10, budget_soft_alert: 0.4 });
    // An amount at or over the max, and a lowered max under a stored amount, are refused.
    expect(
      await locs(service().update(LOCAL_ADMIN, scope, { fields: {}, softAlertUsd: 10 })),
    ).toEqual(['body.budget_soft_alert']);
    await service().update(LOCAL_ADMIN, scope, { fields: { budget_soft_alert: 5 } });
    expect(
      await locs(service().update(LOCAL_ADMIN, scope, { fields: { max_cost_usd: 3 } })),
    ).toEqual(['body.budget_soft_alert']);
  });

  it('refuses values out of range, null where no limit may be lifted, and another identity', async () => {
    const refused = await locs(
      service().replace(LOCAL_ADMIN, scope, {
        fields: { loop_threshold: 0, loop_action: 'stop', cb_enabled: null, max_steps: 2 ** 40 },
        agentName: 'someone-else',
      }),
    );
    expect(refused?.sort()).toEqual([
      'body.agent_name',
      'body.cb_enabled',
      'body.loop_action',
      'body.loop_threshold',
      'body.max_steps',
    ]);
  });

  it('audits each stored change once, and no refused one', async () => {
    const agent = { agentName: 'svc-audited' };
    await service().replace(LOCAL_ADMIN, agent, { fields: { loop_threshold: 3 } });
    await locs(service().update(LOCAL_ADMIN, agent, { fields: { loop_threshold: -1 } }));
    const events = await audit!.list(LOCAL_ADMIN, { limit: 100, offset: 0 });
    expect(
      events
        .filter((e) => e.resource === 'prevention_config:default/svc-audited')
        .map((e) => e.action),
    ).toEqual(['prevention_config.update']);
  });
});
