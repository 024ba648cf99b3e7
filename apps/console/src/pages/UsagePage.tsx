import type { OperationAnswer } from '@cg/sdk';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { BarChart } from '../components/BarChart';
import { lastDays, requestsOf } from '../components/format';
import { describeError, useSession } from '../gateway';

type Bucket = 'day' | 'hour';
type UsageRow = OperationAnswer<'usageGet'>['data']['rows'][number];
type GroupBy = 'key' | 'account';

/** `GET /usage`: per day (7 days) or hour (24 h), by key or by account, as a table and bars. */
export function UsagePage() {
  const { gw } = useSession();
  const [bucket, setBucket] = useState<Bucket>('day');
  const [groupBy, setGroupBy] = useState<GroupBy>('key');
  const usage = useQuery({
    queryKey: ['usage', bucket, groupBy],
    queryFn: async () => (await gw.usageGet({ bucket, groupBy, ...rangeOf(bucket) })).data,
    refetchInterval: 5_000,
  });
  const rows = usage.data?.rows ?? [];
  return (
    <section>
      <h1>Usage</h1>
      <p className="filters">
        <label>
          Per{' '}
          <select
            name="bucket"
            value={bucket}
            onChange={(change) => setBucket(change.target.value as Bucket)}
          >
            <option value="day">day (7 days)</option>
            <option value="hour">hour (24 h)</option>
          </select>
        </label>
        <label>
          By{' '}
          <select
            name="groupBy"
            value={groupBy}
            onChange={(change) => setGroupBy(change.target.value as GroupBy)}
          >
            <option value="key">key</option>
            <option value="account">account</option>
          </select>
        </label>
      </p>
      {usage.isError && <p className="error">{describeError(usage.error)}</p>}
      {usage.data && <BarChart bars={barsOf(rows, bucket)} title={`Requests per ${bucket}`} />}
      {usage.data && rows.length === 0 && <p className="muted">Nothing counted in this range.</p>}
      {rows.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>Start</th>
              <th>{groupBy === 'key' ? 'Key' : 'Account'}</th>
              <th>2xx</th>
              <th>4xx</th>
              <th>429</th>
              <th>5xx</th>
              <th>Platform calls</th>
              <th>Events</th>
              <th>Webhooks delivered / failed</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={`${row.start} ${row.id}`} data-usage={row.id ?? ''}>
                <td>{labelOf(row.start, bucket)}</td>
                <td className="mono">{row.id ?? '—'}</td>
                <td>{row.requests2xx}</td>
                <td>{row.requests4xx}</td>
                <td>{row.requests429}</td>
                <td>{row.requests5xx}</td>
                <td>{row.platformCalls}</td>
                <td>{row.eventsPublished}</td>
                <td>
                  {row.webhooksDelivered} / {row.webhooksFailed}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function rangeOf(bucket: Bucket): { from: string; to: string } {
  if (bucket === 'day') return lastDays(7);
  return { from: new Date(Date.now() - 24 * 3_600_000).toISOString(), to: new Date().toISOString() };
}

/** A bucket's start as its bar's label: MM-DD for a day, HH:00 (UTC) for an hour. */
const labelOf = (start: string, bucket: Bucket) =>
  bucket === 'day' ? start.slice(5, 10) : `${start.slice(11, 13)}:00`;

/** Requests of every row in a bucket, one bar per bucket, oldest first. */
function barsOf(rows: readonly UsageRow[], bucket: Bucket) {
  const totals = new Map<string, number>();
  for (const row of [...rows].sort((a, b) => a.start.localeCompare(b.start)))
    totals.set(row.start, (totals.get(row.start) ?? 0) + requestsOf(row));
  return [...totals].map(([start, value]) => ({ label: labelOf(start, bucket), value }));
}
