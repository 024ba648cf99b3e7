import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FAMILIES } from '../src/index';

// The Grafana dashboard and the scrape configuration in deploy/grafana must stay in step with the
// families: a renamed family would leave a panel empty without anyone noticing.

const root = resolve(import.meta.dirname, '../../..');
const dashboard = JSON.parse(readFileSync(resolve(root, 'deploy/grafana/creator-gateway.json'), 'utf8')) as {
  panels: { type: string; title: string; targets?: { expr: string }[] }[];
};
const scrape = parse(readFileSync(resolve(root, 'deploy/grafana/prometheus.yml'), 'utf8')) as {
  scrape_configs: { job_name: string }[];
};
const expressions = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));

describe('deploy/grafana', () => {
  it('queries only families that exist, and every family somewhere', () => {
    const families = new Map(Object.values(FAMILIES).map((family) => [family.name, family]));
    const used = new Set<string>();
    for (const expr of expressions)
      for (const [name] of expr.matchAll(/\bcg_[a-z_]+\b/g)) {
        const base = families.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');
        const family = families.get(base);
        expect(family, `${name} in ${expr}`).toBeDefined();
        if (base !== name) expect(family?.kind).toBe('histogram');
        used.add(base);
      }
    expect([...families.keys()].filter((name) => !used.has(name))).toEqual([]);
  });

  it('scrapes each kind of process under the job names the dashboard reads', () => {
    const jobs = scrape.scrape_configs.map((config) => config.job_name).sort();
    expect(jobs).toEqual([
      'creator-gateway-api',
      'creator-gateway-listener',
      'creator-gateway-webhooks',
      'creator-gateway-worker',
    ]);
    for (const expr of expressions)
      for (const [, job = ''] of expr.matchAll(/job=~?"([^"]+)"/g)) {
        const pattern = new RegExp(`^${job.replace('$job_api', 'creator-gateway-api')}$`);
        expect(
          jobs.some((name) => pattern.test(name)),
          job,
        ).toBe(true);
      }
  });
});
