import { describe, expect, it } from 'vitest';
import { parsePrefer, waitBudgetMs } from '../src/prefer';

describe('Prefer', () => {
  it('reads respond-async and wait', () => {
    expect(parsePrefer('respond-async')).toEqual({ respondAsync: true });
    expect(parsePrefer('wait=5')).toEqual({ respondAsync: false, waitSeconds: 5 });
    expect(parsePrefer(['respond-async, wait=3'])).toEqual({ respondAsync: true, waitSeconds: 3 });
    expect(parsePrefer(undefined)).toEqual({ respondAsync: false });
    expect(parsePrefer('wait=soon')).toEqual({ respondAsync: false });
  });

  it('takes whitespace around "=" and quoted values (RFC 7240), and no value on respond-async', () => {
    expect(parsePrefer('wait = 0')).toEqual({ respondAsync: false, waitSeconds: 0 });
    expect(parsePrefer('wait="7"')).toEqual({ respondAsync: false, waitSeconds: 7 });
    expect(parsePrefer('Respond-Async ; wait=2')).toEqual({ respondAsync: true, waitSeconds: 2 });
    expect(parsePrefer('respond-async=false')).toEqual({ respondAsync: false });
  });

  it('never waits longer than the server budget', () => {
    expect(waitBudgetMs({ respondAsync: false }, 25_000)).toBe(25_000);
    expect(waitBudgetMs({ respondAsync: false, waitSeconds: 2 }, 25_000)).toBe(2_000);
    expect(waitBudgetMs({ respondAsync: false, waitSeconds: 60 }, 25_000)).toBe(25_000);
    expect(waitBudgetMs({ respondAsync: true, waitSeconds: 60 }, 25_000)).toBe(0);
  });
});
