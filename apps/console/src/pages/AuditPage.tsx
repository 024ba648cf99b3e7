import { useInfiniteQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { time } from '../components/format';
import { JsonDetails } from '../components/JsonDetails';
import { describeError, useSession } from '../gateway';

interface Filter {
  accountId: string;
  keyId: string;
  operation: string;
}

const FIELDS: { name: keyof Filter; label: string }[] = [
  { name: 'accountId', label: 'Account' },
  { name: 'keyId', label: 'Key' },
  { name: 'operation', label: 'Operation' },
];

/** `GET /audit`: the tenant's writes, newest first, filtered; More follows the cursor. */
export function AuditPage() {
  const { gw } = useSession();
  const [filter, setFilter] = useState<Filter>({ accountId: '', keyId: '', operation: '' });
  const audit = useInfiniteQuery({
    queryKey: ['audit', filter],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      (await gw.auditList({ ...present(filter), limit: 50, ...(pageParam ? { cursor: pageParam } : {}) }))
        .data,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
  });
  const entries = audit.data?.pages.flatMap((page) => page.entries) ?? [];
  return (
    <section>
      <h1>Audit</h1>
      <AuditFilter onApply={setFilter} />
      {audit.isError && <p className="error">{describeError(audit.error)}</p>}
      {audit.data && entries.length === 0 && <p className="muted">No entry.</p>}
      {entries.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>When</th>
              <th>Operation</th>
              <th>Key</th>
              <th>Account</th>
              <th>Status</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.id} data-audit={entry.operation}>
                <td>{time(entry.at)}</td>
                <td>
                  <JsonDetails summary={`${entry.method} ${entry.route}`} value={entry} />
                  <span className="muted">{entry.operation}</span>
                </td>
                <td>
                  {entry.keyLabel || '(no label)'} <div className="muted mono">{entry.keyId}</div>
                </td>
                <td className="mono">{entry.accountId ?? '—'}</td>
                <td>{entry.status}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {audit.hasNextPage && (
        <button type="button" disabled={audit.isFetchingNextPage} onClick={() => void audit.fetchNextPage()}>
          More
        </button>
      )}
    </section>
  );
}

/** The filter's fields that are set. */
function present(filter: Filter): Partial<Filter> {
  return Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== ''));
}

function AuditFilter({ onApply }: { onApply: (filter: Filter) => void }) {
  const apply = (submitted: FormEvent<HTMLFormElement>) => {
    submitted.preventDefault();
    const form = new FormData(submitted.currentTarget);
    const read = (name: keyof Filter) => String(form.get(name) ?? '').trim();
    onApply({ accountId: read('accountId'), keyId: read('keyId'), operation: read('operation') });
  };
  return (
    <form className="filters" aria-label="Filter the audit log" onSubmit={apply}>
      {FIELDS.map((field) => (
        <label key={field.name}>
          {field.label} <input name={field.name} />
        </label>
      ))}
      <button type="submit">Apply</button>
    </form>
  );
}
