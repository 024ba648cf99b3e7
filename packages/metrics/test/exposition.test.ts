import { describe, expect, it } from 'vitest';
import { parsePrometheus, sampleSum } from '../../../test/support/prometheus';

// The strict reader the metrics tests trust (test/support/prometheus.ts): it must refuse what
// Prometheus would refuse, or the tests that use it could not fail.

const GOOD = `# HELP cg_demo_total Demo counter with a \\\\ and a \\n in its help
# TYPE cg_demo_total counter
cg_demo_total{route="/a/:id",method="GET",status="200"} 3
cg_demo_total{route="quote\\"d",method="GET",status="404"} 1
# TYPE cg_wait_seconds histogram
cg_wait_seconds_bucket{queue="operations",le="0.1"} 1
cg_wait_seconds_bucket{queue="operations",le="1"} 2
cg_wait_seconds_bucket{queue="operations",le="+Inf"} 2
cg_wait_seconds_sum{queue="operations"} 0.6
cg_wait_seconds_count{queue="operations"} 2
# TYPE cg_up gauge
cg_up NaN
`;

describe('parsePrometheus', () => {
  it('reads families, escapes, histograms and special values', () => {
    const families = parsePrometheus(GOOD);
    expect([...families.keys()]).toEqual(['cg_demo_total', 'cg_wait_seconds', 'cg_up']);
    expect(families.get('cg_demo_total')?.help).toBe('Demo counter with a \\ and a \n in its help');
    expect(families.get('cg_demo_total')?.samples[1]?.labels.route).toBe('quote"d');
    expect(sampleSum(families, 'cg_demo_total')).toBe(4);
    expect(sampleSum(families, 'cg_demo_total', { status: '200' })).toBe(3);
    expect(sampleSum(families, 'cg_wait_seconds_count', { queue: 'operations' })).toBe(2);
    expect(families.get('cg_wait_seconds')?.type).toBe('histogram');
    expect(Number.isNaN(families.get('cg_up')?.samples[0]?.value)).toBe(true);
  });

  it.each([
    ['a bad metric name', '1cg_x 1\n'],
    ['a bad label name', 'cg_x{1a="b"} 1\n'],
    ['a reserved label name', 'cg_x{__name__="b"} 1\n'],
    ['an unquoted label value', 'cg_x{a=b} 1\n'],
    ['an unterminated label value', 'cg_x{a="b} 1\n'],
    ['a bad escape', 'cg_x{a="\\t"} 1\n'],
    ['a label twice', 'cg_x{a="1",a="2"} 1\n'],
    ['a bad value', 'cg_x 1,5\n'],
    ['no value', 'cg_x\n'],
    ['two spaces', 'cg_x  1\n'],
    ['an unknown type', '# TYPE cg_x countr\ncg_x 1\n'],
    ['a TYPE after samples', 'cg_x 1\n# TYPE cg_x gauge\n'],
    ['a TYPE twice', '# TYPE cg_x gauge\n# TYPE cg_x gauge\ncg_x 1\n'],
    ['the same series twice', 'cg_x{a="1"} 1\ncg_x{a="1"} 2\n'],
    ['a family split in two', 'cg_x 1\ncg_y 1\ncg_x{a="2"} 1\n'],
    ['a negative counter', '# TYPE cg_x counter\ncg_x -1\n'],
    ['no newline at the end', 'cg_x 1'],
    [
      'buckets that fall',
      '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="2"} 1\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 2\n',
    ],
    ['no +Inf bucket', '# TYPE h histogram\nh_bucket{le="1"} 2\nh_sum 1\nh_count 2\n'],
    ['+Inf that is not the count', '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 3\n'],
    ['no _sum', '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_count 2\n'],
  ])('refuses %s', (_what, text) => {
    expect(() => parsePrometheus(text)).toThrow();
  });
});
