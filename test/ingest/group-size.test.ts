import { describe, expect, it } from 'vitest';
import { GroupSize } from '../../src/ingest/group-size.ts';

/** How large the next group commit may be (src/ingest/group-size.ts), on an injected clock. */
describe('group size while tenants share the writer', () => {
  it('keeps full groups for one tenant, sizes them to about 50 ms of commits for two, and forgets a tenant idle for 5 s', () => {
    let now = 0;
    const size = new GroupSize(5000, () => now);
    size.seen('flood');
    size.committed(5000, 2500); // 2 spans/ms: a busy database
    expect(size.cap()).toBe(5000);
    size.seen('victim');
    // 2 spans/ms × 50 ms = 100, raised to the 250-span floor.
    expect(size.cap()).toBe(250);
    size.committed(5000, 250); // 20 spans/ms now: the average moves toward it
    expect(size.cap()).toBe(Math.round((0.7 * 2 + 0.3 * 20) * 50));
    now += 5001;
    size.seen('flood');
    expect(size.cap()).toBe(5000);
  });

  it('does not let small groups, whose cost is mostly fixed, shrink the groups further', () => {
    const size = new GroupSize(5000, () => 0);
    size.seen('a');
    size.seen('b');
    expect(size.cap()).toBe(5000); // nothing measured yet
    size.committed(400, 100);
    expect(size.cap()).toBe(5000);
    size.committed(1000, 10);
    expect(size.cap()).toBe(5000); // 100 spans/ms × 50 ms, capped at max_commit_spans
  });
});
