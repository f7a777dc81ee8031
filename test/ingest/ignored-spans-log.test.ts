import { describe, expect, it } from 'vitest';
import { IgnoredSpansLog } from '../../src/ingest/ignored-spans-log.ts';
import { captureLog } from '../helpers/log-capture.ts';

describe('ignored OTLP spans log', () => {
  it('logs once per project per minute, with what was ignored since the last line', () => {
    const log = captureLog();
    let now = 5_000_000;
    const notes = new IgnoredSpansLog(log.logger, () => now);
    notes.ignored('shop', 3);
    notes.ignored('shop', 4);
    notes.ignored('billing', 1);
    now += 59_999;
    notes.ignored('shop', 2);
    now += 1;
    notes.ignored('shop', 1);
    notes.ignored('shop', 0);
    expect(log.lines.map((l) => [l.project_id, l.ignored_spans])).toEqual([
      ['shop', 3],
      ['billing', 1],
      ['shop', 7],
    ]);
    expect(log.lines[0]).toMatchObject({ level: 30, doc: 'docs/ingest.md#otlp-span-selection' });
  });

  it('stays bounded when a caller names thousands of projects', () => {
    const log = captureLog();
    let now = 0;
    const notes = new IgnoredSpansLog(log.logger, () => now);
    for (let i = 0; i < 5000; i++) notes.ignored(`p${i}`, 1);
    expect(log.lines).toHaveLength(1000);
    now += 60_000;
    notes.ignored('late', 1);
    expect(log.lines.at(-1)?.project_id).toBe('late');
  });
});
