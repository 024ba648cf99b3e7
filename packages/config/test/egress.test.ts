import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadEgressPlan } from '../src/egress';
import { loadGatewayConfig } from '../src/gateway';

const settings = (env: Record<string, string>) => loadGatewayConfig({ ENCRYPTION_KEY: 'x', ...env });
const plan = (proxies: unknown) => loadEgressPlan(settings({ EGRESS_PROXIES: JSON.stringify(proxies) }));

describe('loadEgressPlan', () => {
  it('is null (direct) without proxies', () => {
    expect(loadEgressPlan(settings({}))).toBeNull();
  });

  it('reads proxies by country, labels them host:port, and keeps the rule settings', () => {
    const loaded = loadEgressPlan(
      settings({
        EGRESS_PROXIES: JSON.stringify({
          US: ['http://user:pass@us1.example:3128', 'http://us2.example'],
          GB: ['http://gb1.example:8080'],
        }),
        EGRESS_FAILURES: '5',
        EGRESS_FALLBACK: 'direct',
      }),
    );
    expect(loaded?.byCountry.get('US')?.map((proxy) => proxy.label)).toEqual([
      'us1.example:3128',
      'us2.example:80',
    ]);
    expect(loaded?.byCountry.get('GB')?.[0]).toMatchObject({
      country: 'GB',
      url: 'http://gb1.example:8080/',
    });
    expect(loaded?.byId.size).toBe(3);
    expect(loaded).toMatchObject({
      failures: 5,
      fallback: 'direct',
      failureWindowMs: 30_000,
      cooldownMs: 60_000,
    });
  });

  it('names a proxy by its user, host and port: a new password keeps its id, another user does not', () => {
    const id = (url: string) => plan({ US: [url] })?.byCountry.get('US')?.[0]?.id;
    expect(id('http://u:old@h.example:3128')).toBe(id('http://u:new@h.example:3128'));
    expect(id('http://u:old@h.example:3128')).not.toBe(id('http://v:old@h.example:3128'));
    expect(id('http://u:old@h.example:3128')).toMatch(/^px-[0-9a-f]{16}$/);
  });

  it('reads the same JSON from EGRESS_PROXIES_FILE', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cg-egress-')), 'proxies.json');
    writeFileSync(file, JSON.stringify({ DE: ['http://de.example:3128'] }));
    expect([...(loadEgressPlan(settings({ EGRESS_PROXIES_FILE: file }))?.byCountry.keys() ?? [])]).toEqual([
      'DE',
    ]);
  });

  it.each([
    ['not json', 'EGRESS_PROXIES: not JSON'],
    ['[]', 'EGRESS_PROXIES: expected an object from country code'],
    ['{}', 'EGRESS_PROXIES: no country has proxies'],
    ['{"us":["http://h:1"]}', '"us" is not a two-letter uppercase country code'],
    ['{"US":[]}', 'US must be a non-empty list of proxy URLs'],
    ['{"US":[3128]}', 'US[0] is not a string'],
    ['{"US":["h:secret@x"]}', 'US[0]: h: proxies are not supported'],
    ['{"US":["not a url secret"]}', 'US[0] is not a URL'],
    ['{"US":["https://u:secret@h:1"]}', 'US[0]: https: proxies are not supported (http: is)'],
    ['{"US":["http://u:secret@h:1/path"]}', 'US[0]: a proxy URL has no path, query or fragment'],
    ['{"US":["http://:secret@h:1"]}', 'US[0]: a password without a user name'],
    ['{"US":["http://h:1"],"GB":["http://h:1"]}', 'proxy h:1 is listed twice (US and GB)'],
  ])('refuses %s, naming the variable and the problem, never the password', (value, problem) => {
    const attempt = () => loadEgressPlan(settings({ EGRESS_PROXIES: value }));
    expect(attempt).toThrow(problem);
    expect(attempt).toThrow(/^invalid environment variable EGRESS_PROXIES: /);
    try {
      attempt();
    } catch (error) {
      expect((error as Error).message).not.toContain('secret');
    }
  });

  it('refuses both variables at once, and a file it cannot read', () => {
    expect(() => loadEgressPlan(settings({ EGRESS_PROXIES: '{}', EGRESS_PROXIES_FILE: '/x' }))).toThrow(
      'set EGRESS_PROXIES or EGRESS_PROXIES_FILE, not both',
    );
    expect(() => loadEgressPlan(settings({ EGRESS_PROXIES_FILE: '/nonexistent/proxies.json' }))).toThrow(
      'invalid environment variable EGRESS_PROXIES_FILE: cannot read /nonexistent/proxies.json (ENOENT)',
    );
  });
});
