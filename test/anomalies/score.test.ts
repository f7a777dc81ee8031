import { describe, expect, it } from 'vitest';
import { nextEpisode, score } from '../../src/anomalies/score.ts';

/** The z and episode rules of docs/anomalies.md, by hand. */
describe('anomaly scoring', () => {
  it('divides by the stddev or the floor, whichever is larger, and grades |z|', () => {
    expect(score('latency_ms', 130, 100, 10)).toEqual({ zScore: 3, severity: 'critical' });
    expect(score('latency_ms', 125, 100, 2)).toEqual({ zScore: 2.5, severity: 'warning' }); // floor 10 ms
    expect(score('latency_ms', 70, 100, 10)).toEqual({ zScore: -3, severity: 'critical' }); // a drop is listed
    expect(score('error_rate', 0.015, 0, 0)).toEqual({ zScore: 1.5, severity: null }); // floor 0.01
    expect(score('error_rate', 0.5, 0.1, 0.1).zScore).toBeCloseTo(4, 12);
  });

  it('alerts once per episode, escalates once, and ends below z 2', () => {
    expect(nextEpisode(null, 2.1)).toEqual({ resolve: false, fire: 'warning', alerted: 'warning' });
    expect(nextEpisode('warning', 2.9)).toEqual({ resolve: false, fire: null, alerted: 'warning' });
    expect(nextEpisode('warning', 3.2)).toEqual({
      resolve: true,
      fire: 'critical',
      alerted: 'critical',
    });
    expect(nextEpisode('critical', 2.2)).toEqual({
      resolve: false,
      fire: null,
      alerted: 'critical',
    });
    expect(nextEpisode('critical', 1.9)).toEqual({ resolve: true, fire: null, alerted: null });
    expect(nextEpisode(null, -5)).toEqual({ resolve: false, fire: null, alerted: null }); // an improvement never alerts
    expect(nextEpisode('warning', -5)).toEqual({ resolve: true, fire: null, alerted: null });
    expect(nextEpisode('critical', null)).toEqual({ resolve: true, fire: null, alerted: null }); // no sample any more
  });
});
