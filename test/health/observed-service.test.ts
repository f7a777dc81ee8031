import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { LOCAL_ADMIN } from '../../src/auth/principal.ts';
import { SpyglassError } from '../../src/errors.ts';
import { MAX_OBSERVED_TOOLS } from '../../src/health/observed-rules.ts';
import { ObservedToolsService } from '../../src/health/observed-tools.ts';
import { RecordingSink } from '../helpers/recording-sink.ts';
import { useRepoStore } from '../helpers/repo-store.ts';

/**
 * ObservedToolsService checks names and the list's size itself, so REST, GraphQL and any later
 * adapter refuse the same lists with the same issues.
 */
describe('ObservedToolsService', () => {
  const db = useRepoStore('pglite');
  const service = () =>
    new ObservedToolsService({
      db: db(),
      alerts: new RecordingSink(),
      logger: pino({ level: 'silent' }),
    });
  const issues = async (p: Promise<unknown>) => {
    const err = await p.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SpyglassError);
    return (err as SpyglassError).issues;
  };

  it('refuses blank or overlong names and too long a list, every problem at once', async () => {
    const long = 'x'.repeat(513);
    expect(
      await issues(
        service().record(LOCAL_ADMIN, long, {
          tools: [{ name: '' }, { name: 'ok' }, { name: long }],
          agentName: long,
        }),
      ),
    ).toEqual([
      expect.objectContaining({ loc: ['path', 'name'], type: 'string_too_long' }),
      expect.objectContaining({ loc: ['body', 'agent_name'] }),
      expect.objectContaining({ loc: ['body', 'tools', 0, 'name'] }),
      expect.objectContaining({ loc: ['body', 'tools', 2, 'name'] }),
    ]);
    const many = Array.from({ length: MAX_OBSERVED_TOOLS + 1 }, (_, i) => ({ name: `t${i}` }));
    expect(await issues(service().record(LOCAL_ADMIN, 'db', { tools: many }))).toEqual([
      expect.objectContaining({ loc: ['body', 'tools'], type: 'too_long' }),
    ]);
  });

  it('stores a valid list; an empty agent name is none', async () => {
    const out = await service().record(LOCAL_ADMIN, 'db', {
      tools: [{ name: 'read', inputSchema: { type: 'object' } }],
      agentName: '',
    });
    expect(out).toMatchObject({
      projectId: 'default',
      agentName: null,
      toolsCount: 1,
      drift: null,
    });
  });
});
