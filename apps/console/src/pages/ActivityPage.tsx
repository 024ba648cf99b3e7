import type { StreamedEvent } from '@cg/sdk';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { time } from '../components/format';
import { JsonDetails } from '../components/JsonDetails';
import { describeError, useSession } from '../gateway';

const KEPT = 200;

interface Filter {
  accountId: string;
  event: string;
}

/** The tenant's events as they happen (`events.stream()`), filtered, pausable, newest first. */
export function ActivityPage() {
  const [filter, setFilter] = useState<Filter>({ accountId: '', event: '' });
  const [paused, setPaused] = useState(false);
  const { events, failure } = useEventStream(filter, paused);
  return (
    <section>
      <h1>Activity</h1>
      <FilterForm filter={filter} onApply={setFilter} />
      <p>
        <button type="button" onClick={() => setPaused(!paused)}>
          {paused ? 'Resume' : 'Pause'}
        </button>{' '}
        <span className="muted" role="status">
          {paused ? 'Paused' : 'Live'} · {events.length} event(s)
        </span>
      </p>
      {failure && <p className="error">{failure}</p>}
      <ul className="rows" aria-label="Events">
        {events.map(({ cursor, event }) => (
          <li key={cursor} data-event={event.event}>
            <JsonDetails
              summary={
                <>
                  <strong>{event.event}</strong> <span className="mono">{event.accountId ?? '—'}</span>{' '}
                  <span className="muted">{time(event.timestamp)}</span>
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

/**
 * The stream while mounted and not paused, for this filter; resumes after the last event seen when
 * unpaused. Aborted (the iterator ended) on unmount, on pause and on a new filter.
 */
function useEventStream(filter: Filter, paused: boolean) {
  const { gw } = useSession();
  const [events, setEvents] = useState<StreamedEvent[]>([]);
  const [failure, setFailure] = useState<string | null>(null);
  const last = useRef<{ filter: Filter; cursor?: string }>({ filter });
  useEffect(() => {
    if (paused) return;
    if (last.current.filter !== filter) {
      last.current = { filter };
      setEvents([]);
    }
    const abort = new AbortController();
    const stream = gw.events.stream({
      signal: abort.signal,
      ...(filter.accountId ? { accountId: filter.accountId } : {}),
      ...(filter.event ? { events: filter.event.split(',').map((name) => name.trim()) } : {}),
      ...(last.current.cursor ? { after: last.current.cursor } : {}),
    });
    void (async () => {
      try {
        for await (const item of stream) {
          last.current.cursor = item.cursor;
          setFailure(null);
          setEvents((kept) => [item, ...kept].slice(0, KEPT));
        }
      } catch (error) {
        if (!abort.signal.aborted) setFailure(describeError(error));
      }
    })();
    return () => abort.abort(new Error('left the page'));
  }, [gw, filter, paused]);
  return { events, failure };
}

function FilterForm({ filter, onApply }: { filter: Filter; onApply: (filter: Filter) => void }) {
  const apply = (submitted: FormEvent<HTMLFormElement>) => {
    submitted.preventDefault();
    const form = new FormData(submitted.currentTarget);
    onApply({
      accountId: String(form.get('accountId') ?? '').trim(),
      event: String(form.get('event') ?? '').trim(),
    });
  };
  return (
    <form className="filters" aria-label="Filter events" onSubmit={apply}>
      <label>
        Account <input name="accountId" defaultValue={filter.accountId} />
      </label>
      <label>
        Event <input name="event" defaultValue={filter.event} placeholder="message.received, …" />
      </label>
      <button type="submit">Apply</button>
    </form>
  );
}
