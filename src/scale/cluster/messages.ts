/** What the primary sends a worker over the cluster IPC channel. */
export const SHUTDOWN_MESSAGE = { type: 'spyglass:shutdown' } as const;

export function isShutdownMessage(msg: unknown): boolean {
  return (
    typeof msg === 'object' &&
    msg !== null &&
    (msg as { type?: unknown }).type === SHUTDOWN_MESSAGE.type
  );
}
