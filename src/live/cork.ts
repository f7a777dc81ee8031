import type { Socket } from 'node:net';
import type { DeliveryBudget } from './delivery-share.ts';

/**
 * A live client gets many small messages in one event-loop turn (one per event of a commit, each
 * its own WebSocket frame or SSE chunk). `corkForTurn(tcp, delivery)` corks the socket from the first
 * message of a turn until the next turn, so they leave in one write instead of one syscall each.
 */
export function corkForTurn(tcp: Socket, delivery: DeliveryBudget): () => void {
  let corked = false;
  return () => {
    if (corked || tcp.destroyed) return;
    corked = true;
    tcp.cork();
    setImmediate(() => {
      corked = false;
      // The frames' write is live delivery's work, charged to the app's share.
      delivery.timed(() => tcp.uncork());
    });
  };
}
