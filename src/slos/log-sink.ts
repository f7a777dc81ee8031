import type { Logger } from 'pino';
import type { AlertSink } from '../alerts/types.ts';

/**
 * An AlertSink that only logs, for a build without the alert inbox: SLO breaches still show up in
 * the server log. Nothing is stored, so `fire` reports no alert and `resolveKey` closes none.
 */
export function logAlertSink(logger: Logger): AlertSink {
  return {
    fire: async (input) => {
      logger.warn({ alert: input.type, projectId: input.projectId, dedupKey: input.dedupKey, fields: input.fields }, `${input.title}: ${input.message}`);
      return null;
    },
    resolveKey: async (projectId, dedupKey) => {
      logger.info({ projectId, dedupKey }, 'alert condition cleared');
      return 0;
    },
  };
}
