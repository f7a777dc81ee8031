import type { Logger } from 'pino';
import type { KeyService } from '../auth/key-service.ts';
import { startPeriodic } from '../scale/jobs/periodic.ts';
import type { LiveClients } from './live-clients.ts';

/**
 * Ends the live connections of keys that stop being usable (docs/api.md#live-clients-one-budget): at once when the key
 * is revoked through this process (directly or by deactivating its user), and within `everyMs`
 * when it is revoked through another worker, expires, or goes with its project.
 */
export function endRevokedStreams(
  keys: KeyService,
  clients: LiveClients,
  logger: Logger,
  everyMs = 1000,
): { stop(): Promise<void> } {
  const off = keys.onRevoked((ids) => void clients.endForKeys(ids, 'API key revoked'));
  const sweep = startPeriodic(
    async () => {
      const ids = clients.keyIds();
      if (ids.length === 0) return;
      const gone = await keys.unusable(ids);
      if (gone.length > 0) clients.endForKeys(gone, 'API key revoked or expired');
    },
    everyMs,
    (err) => logger.warn({ err }, 'live key check failed'),
  );
  return {
    stop: async () => {
      off();
      await sweep.stop();
    },
  };
}
