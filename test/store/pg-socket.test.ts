import { describe, expect, it } from 'vitest';
import { noDelayOption } from '../../src/store/pg-socket.ts';

/** Which PostgreSQL URLs get the server's TCP_NODELAY sockets (src/store/pg-socket.ts). */
describe('TCP_NODELAY sockets', () => {
  it('are given for one host, not for a URL naming several (postgres.js fails over with its own)', () => {
    for (const url of [
      'postgres://u:p@db.internal:5432/spyglass',
      'postgresql://127.0.0.1/x?sslmode=disable',
      'postgres://u:p,w@db/x',
    ])
      expect(noDelayOption(url), url).toHaveProperty('socket');
    for (const url of [
      'postgres://u:p@a:5432,b:5433/spyglass',
      'postgres://a,b/x?target_session_attrs=read-write',
    ])
      expect(noDelayOption(url), url).toEqual({});
  });
});
