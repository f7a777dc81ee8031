import { describe, expect, it } from 'vitest';
import { RateLimitWarnings } from '../../src/ingest/rate-limit-warnings.ts';
import { captureLog } from '../helpers/log-capture.ts';

describe('rate-limited ingest warnings', () => {
  it('warns once per caller per minute, again after the minute, separately per caller', () => {
    const log = captureLog();
    let now = 1_000_000;
    const warnings = new RateLimitWarnings(log.logger, () => now);
    const detail = { transport: 'grpc' as const, route: 'TraceService/Export' };
    warnings.rateLimited('key:a', detail);
    now += 59_999;
    warnings.rateLimited('key:a', detail);
    warnings.rateLimited('ip:127.0.0.1', detail);
    now += 1;
    warnings.rateLimited('key:a', detail);
    expect(log.lines.map((l) => l.who)).toEqual(['key:a', 'ip:127.0.0.1', 'key:a']);
  });
});
