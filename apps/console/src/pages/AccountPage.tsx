import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { BarChart } from '../components/BarChart';
import { lastDays, requestsOf, time } from '../components/format';
import { JsonDetails } from '../components/JsonDetails';
import { can, describeError, useSession } from '../gateway';
import { hrefOf } from '../router';

/** One account: its whole status, recent jobs (cancel a waiting one), events and a week's usage. */
export function AccountPage({ accountId }: { accountId: string }) {
  return (
    <section>
      <p>
        <a href={hrefOf('accounts')}>← Accounts</a>
      </p>
      <h1>
        Account <span className="mono">{accountId}</span>
      </h1>
      <AccountStatus accountId={accountId} />
      <AccountJobs accountId={accountId} />
      <AccountEvents accountId={accountId} />
      <AccountUsage accountId={accountId} />
    </section>
  );
}

/** `GET /accounts/{id}/status`, every field, grouped as the answer is. */
function AccountStatus({ accountId }: { accountId: string }) {
  const { gw } = useSession();
  const status = useQuery({
    queryKey: ['accounts', accountId, 'status'],
    queryFn: async () => (await gw.accountStatus({ accountId })).data,
    refetchInterval: 15_000,
  });
  return (
    <section className="panel wide" aria-label="Status">
      <h2>Status</h2>
      {status.isError && <p className="error">{describeError(status.error)}</p>}
      {status.data && (
        <dl className="status">
          {Object.entries(status.data)
            .filter(([group]) => group !== 'accountId')
            .map(([group, value]) => (
              <StatusGroup key={group} name={group} value={value} />
            ))}
        </dl>
      )}
    </section>
  );
}

/** One group of the status (connection, session, platform, lane, realtime…) as name: value lines. */
function StatusGroup({ name, value }: { name: string; value: unknown }) {
  const fields =
    value !== null && typeof value === 'object' ? Object.entries(value as Record<string, unknown>) : [];
  return (
    <div data-status={name}>
      <dt>{name}</dt>
      <dd>
        {fields.length === 0 ? (
          shown(value)
        ) : (
          <ul>
            {fields.map(([field, item]) => (
              <li key={field}>
                <span className="muted">{field}</span> {shown(item)}
              </li>
            ))}
          </ul>
        )}
      </dd>
    </div>
  );
}

function shown(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** `GET /jobs?accountId=`: each job opens to its answer; a waiting one can be cancelled. */
function AccountJobs({ accountId }: { accountId: string }) {
  const { gw, scope } = useSession();
  const queryClient = useQueryClient();
  const jobs = useQuery({
    queryKey: ['jobs', accountId],
    queryFn: async () => (await gw.jobsList({ accountId, limit: 20 })).data,
    refetchInterval: 5_000,
  });
  const cancel = useMutation({
    mutationFn: (jobId: string) => gw.jobCancel({ jobId }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['jobs', accountId] }),
  });
  const writable = can.write(scope);
  return (
    <section className="panel wide" aria-label="Jobs">
      <h2>Recent jobs</h2>
      {jobs.isError && <p className="error">{describeError(jobs.error)}</p>}
      {cancel.isError && <p className="error">{describeError(cancel.error)}</p>}
      {jobs.data?.jobs.length === 0 && <p className="muted">No job yet.</p>}
      <ul className="rows">
        {jobs.data?.jobs.map((job) => (
          <li key={job.jobId} data-job={job.jobId}>
            <JsonDetails
              summary={
                <>
                  <strong>{job.operation}</strong> <span className={`state ${job.state}`}>{job.state}</span>{' '}
                  <span className="muted">{time(job.submittedAt)}</span>
                </>
              }
              value={job.answer}
            />
            {writable && (job.state === 'waiting' || job.state === 'delayed') && (
              <button type="button" disabled={cancel.isPending} onClick={() => cancel.mutate(job.jobId)}>
                Cancel
              </button>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** `GET /events?accountId=`: the newest events, each opening to its JSON. */
function AccountEvents({ accountId }: { accountId: string }) {
  const { gw } = useSession();
  const events = useQuery({
    queryKey: ['events', accountId],
    queryFn: async () => (await gw.eventsList({ accountId, limit: 20 })).data,
    refetchInterval: 10_000,
  });
  return (
    <section className="panel wide" aria-label="Events">
      <h2>Recent events</h2>
      {events.isError && <p className="error">{describeError(events.error)}</p>}
      {events.data?.events.length === 0 && <p className="muted">No event yet.</p>}
      <ul className="rows">
        {events.data?.events.map((event) => (
          <li key={event.id}>
            <JsonDetails
              summary={
                <>
                  <strong>{event.event}</strong> <span className="muted">{time(event.timestamp)}</span>
                </>
              }
              value={event}
            />
          </li>
        ))}
      </ul>
    </section>
  );
}

/** `GET /usage` of the last 7 days by day, this account's requests as bars. */
function AccountUsage({ accountId }: { accountId: string }) {
  const { gw } = useSession();
  const usage = useQuery({
    queryKey: ['usage', 'account', accountId],
    queryFn: async () => (await gw.usageGet({ groupBy: 'account', bucket: 'day', ...lastDays(7) })).data,
    refetchInterval: 15_000,
  });
  const bars = daysOf(7).map((day) => ({
    label: day.slice(5),
    value: (usage.data?.rows ?? [])
      .filter((row) => row.id === accountId && row.start.slice(0, 10) === day)
      .reduce((sum, row) => sum + requestsOf(row), 0),
  }));
  return (
    <section className="panel wide" aria-label="Usage">
      <h2>Requests, last 7 days</h2>
      {usage.isError && <p className="error">{describeError(usage.error)}</p>}
      {usage.data && <BarChart bars={bars} title="Requests per day" />}
    </section>
  );
}

/** The last `count` UTC days, oldest first, as YYYY-MM-DD. */
function daysOf(count: number): string[] {
  const today = Date.now();
  return Array.from({ length: count }, (_, index) =>
    new Date(today - (count - 1 - index) * 86_400_000).toISOString().slice(0, 10),
  );
}
