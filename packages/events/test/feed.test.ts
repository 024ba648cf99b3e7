import { describe, expect, it } from 'vitest';
import { FeedEntry, isAfter, isStreamId, normalStreamId } from '../src/feed';

// The feed's ids: the log's stream ids, compared exactly (test/e2e/events-stream.test.ts runs the
// feed itself against Redis).
describe('stream ids', () => {
  it('knows a Redis stream id: two 64-bit unsigned numbers', () => {
    for (const id of ['0-0', '1796223778819-0', '18446744073709551615-18446744073709551615'])
      expect(isStreamId(id), id).toBe(true);
    for (const id of [
      '',
      '1',
      '1-',
      '-1',
      '1-2-3',
      'a-1',
      '18446744073709551616-0',
      '0-18446744073709551616',
    ])
      expect(isStreamId(id), id).toBe(false);
  });

  it('compares them as numbers, whatever their length', () => {
    expect(isAfter('10-0', '9-0')).toBe(true);
    expect(isAfter('9-0', '10-0')).toBe(false);
    expect(isAfter('5-10', '5-9')).toBe(true);
    expect(isAfter('5-9', '5-9')).toBe(false);
    expect(isAfter('18446744073709551615-0', '18446744073709551614-99')).toBe(true);
    expect(normalStreamId('007-010')).toBe('7-10');
    expect(isAfter(normalStreamId('0010-0'), '9-5')).toBe(true);
  });

  it('makes one SSE frame per entry: its id, name and the envelope on one line', () => {
    const json = JSON.stringify({
      id: 'evt_1',
      event: 'tips.received',
      accountId: null,
      data: { a: 'x\ny' },
    });
    const entry = new FeedEntry('5-0', JSON.parse(json), json);
    expect(entry.frame).toBe(`id: 5-0\nevent: tips.received\ndata: ${json}\n\n`);
    expect(entry.frame.split('\n')).toHaveLength(5);
  });
});
