import { describe, expect, it } from 'vitest';
import { Coalescer } from '../src/coalesce';

/** A flush that records the groups it was given and finishes when the test lets it. */
function recorder() {
  const groups: number[][] = [];
  const pending: (() => void)[] = [];
  const flush = (items: number[]) =>
    new Promise<void>((resolve) => {
      groups.push(items);
      pending.push(resolve);
    });
  const finishAll = () => {
    for (const resolve of pending.splice(0)) resolve();
  };
  return { groups, flush, finishAll };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('Coalescer', () => {
  it('sends a lone item at once, and gathers the next ones while that flush is on its way', async () => {
    const { groups, flush, finishAll } = recorder();
    // max 16: three waiting are under a quarter, so they wait for the flush on its way.
    const coalescer = new Coalescer(flush, 16, 4);
    const first = coalescer.add(1);
    await turn();
    expect(groups).toEqual([[1]]);
    const later = [coalescer.add(2), coalescer.add(3), coalescer.add(4)];
    await turn();
    expect(groups).toEqual([[1]]);
    finishAll();
    await first;
    await turn();
    expect(groups).toEqual([[1], [2, 3, 4]]);
    finishAll();
    await Promise.all(later);
  });

  it('sends items added in the same turn together, at most `max` per flush', async () => {
    const { groups, flush, finishAll } = recorder();
    const coalescer = new Coalescer(flush, 3, 1);
    const added = [1, 2, 3, 4, 5].map((n) => coalescer.add(n));
    await turn();
    expect(groups).toEqual([[1, 2, 3]]);
    finishAll();
    await turn();
    expect(groups).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    finishAll();
    await Promise.all(added);
  });

  it('lets a burst go out beside the flush on its way once a quarter of `max` waits', async () => {
    const { groups, flush, finishAll } = recorder();
    const coalescer = new Coalescer(flush, 8, 2);
    const first = coalescer.add(0);
    await turn();
    // One waiting: below a quarter of 8 (2), it waits for the flush on its way.
    const small = [coalescer.add(1)];
    await turn();
    expect(groups).toEqual([[0]]);
    small.push(coalescer.add(2));
    await turn();
    // Now a quarter waits: a second flush goes out while the first is still on its way.
    expect(groups).toEqual([[0], [1, 2]]);
    finishAll();
    await Promise.all([first, ...small]);
    await coalescer.drain();
  });

  it('rejects every item of a flush that failed, and goes on with the next ones', async () => {
    let calls = 0;
    const coalescer = new Coalescer<number>(async () => {
      calls += 1;
      if (calls === 1) throw new Error('redis down');
    });
    const failed = [coalescer.add(1), coalescer.add(2)];
    await expect(Promise.all(failed)).rejects.toThrow('redis down');
    await Promise.allSettled(failed).then((results) =>
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']),
    );
    await expect(coalescer.add(3)).resolves.toBeUndefined();
  });

  it('drains: resolves once everything added so far is sent', async () => {
    const { groups, flush, finishAll } = recorder();
    const coalescer = new Coalescer(flush, 10, 1);
    void coalescer.add(1);
    let drained = false;
    const draining = coalescer.drain().then(() => {
      drained = true;
    });
    await turn();
    expect(drained).toBe(false);
    finishAll();
    await draining;
    expect(drained).toBe(true);
    expect(groups).toEqual([[1]]);
  });
});
