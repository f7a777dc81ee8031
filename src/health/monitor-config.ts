export type { MonitorConfig } from '../config/types.ts';

export const DEFAULT_TIMEOUT_SECONDS = 5;
