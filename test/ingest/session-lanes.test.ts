import { describe, expect, it } from 'vitest';
import { SessionLanes } from '../../src/ingest/session-lanes.ts';
import type { Span } from '../../src/model/span.ts';
import { normalizeNativeBatch } from '../../src/normalize/native.ts';
import { nativeSpan } from '../helpers/spans.ts';

const spans = (...sessions: string[]): Span[] =>
  normalizeNativeBatch(
    sessions.map((s, i) => nativeSpan({ span_id: `${s}-${i}-${Math.random()}`, session_id: s })),
    'default',
    1000,
  );
const byLane = (parts: Map<number, Span[]>) =>
  Object.fromEntries([...parts].map(([lane, p]) => [lane, p.map((s) => s.sessionId)]));

/** Which commit lane holds a session while its spans wait or commit (src/ingest/session-lanes.ts). */
describe('session lanes', () => {
  it('keeps a request whole in the free lane, and a held session in the lane that holds it until every part is released', () => {
    const lanes = new SessionLanes();
    const first = lanes.split(spans('a', 'b', 'a'), () => 0);
    expect(byLane(first)).toEqual({ 0: ['a', 'b', 'a'] });
    // 'a' is held by lane 0: its spans go there whatever the free lane; 'c' follows the request's held session.
    const second = lanes.split(spans('c', 'a'), () => 1);
    expect(byLane(second)).toEqual({ 0: ['c', 'a'] });
    // A request of sessions no lane holds goes to the free lane.
    expect(byLane(lanes.split(spans('d'), () => 1))).toEqual({ 1: ['d'] });
    lanes.release(first.get(0) as Span[]);
    // 'a' is still held by the second request's part.
    expect(byLane(lanes.split(spans('a'), () => 1))).toEqual({ 0: ['a'] });
  });

  it('frees a session once all its spans are released', () => {
    const lanes = new SessionLanes();
    const part = lanes.split(spans('a', 'a'), () => 0).get(0) as Span[];
    lanes.release(part);
    expect(byLane(lanes.split(spans('a'), () => 1))).toEqual({ 1: ['a'] });
  });
});
