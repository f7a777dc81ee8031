import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startInProcessApp, type InProcessApp } from '../helpers/in-process.ts';

/** auditLog's target (resource prefix, taken literally) and time range filters (docs/auth.md#audit-log). */
const ADMIN = `sg_${'d'.repeat(64)}`;
let h: InProcessApp;

const LOG = `query ($target: String, $since: DateTime, $until: DateTime, $action: String) {
  auditLog(target: $target, since: $since, until: $until, action: $action, first: 50) {
    edges { node { action resource timestamp } }
  }
}`;

async function resources(vars: Record<string, unknown>): Promise<string[]> {
  const { data, errors } = await h.gql(LOG, vars, ADMIN);
  expect(errors).toBeUndefined();
  return data.auditLog.edges.map((e: { node: { resource: string } }) => e.node.resource);
}

const create = async (id: string) => {
  const { errors } = await h.gql(
    `mutation ($id: String!) { createProject(id: $id, name: "n") { id } }`,
    { id },
    ADMIN,
  );
  expect(errors).toBeUndefined();
};

/** Resolves once the clock has passed `ms` (timestamps have millisecond resolution). */
const laterThan = (ms: number) =>
  vi.waitFor(() => {
    if (Date.now() <= ms) throw new Error('same millisecond');
  });

let between: string;
beforeAll(async () => {
  h = await startInProcessApp({ SPYGLASS_API_KEYS: ADMIN, SPYGLASS_RATE_LIMITS: 'off' });
  await create('aud_one');
  await create('audxtwo');
  await h.services.audit.flush();
  // `between` is strictly later than the entries before it and earlier than the one after it.
  await laterThan(Date.now());
  between = new Date().toISOString();
  await laterThan(Date.parse(between));
  await create('aud_three');
});
afterAll(async () => h?.close());

describe('auditLog(target, since, until)', () => {
  it('refuses a text filter over 512 characters, naming it', async () => {
    const { errors } = await h.gql(LOG, { target: 'x'.repeat(513) }, ADMIN);
    expect(errors?.[0]?.extensions).toMatchObject({
      code: 'VALIDATION',
      issues: [{ loc: ['query', 'target'], type: 'string_too_long' }],
    });
  });

  it('matches resources by prefix, with _ and % literal', async () => {
    expect((await resources({ target: 'project:aud_' })).sort()).toEqual([
      'project:aud_one',
      'project:aud_three',
    ]);
    expect(await resources({ target: 'project:aud%' })).toEqual([]);
    expect(await resources({ target: 'project:audx' })).toEqual(['project:audxtwo']);
  });

  it('keeps entries in [since, until), and combines with the other filters', async () => {
    expect(await resources({ target: 'project:aud', since: between })).toEqual([
      'project:aud_three',
    ]);
    expect((await resources({ target: 'project:aud', until: between })).sort()).toEqual([
      'project:aud_one',
      'project:audxtwo',
    ]);
    expect(
      await resources({ target: 'project:aud', action: 'project.deleted', since: between }),
    ).toEqual([]);
  });

  it('refuses a malformed instant', async () => {
    const { errors } = await h.gql(LOG, { since: 'yesterday' }, ADMIN);
    expect(errors?.[0]?.message).toMatch(/DateTime/);
  });
});
