import type { OperationAnswer } from '@cg/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { time } from '../components/format';
import { can, describeError, useSession } from '../gateway';

type Endpoint = OperationAnswer<'webhooksList'>['data']['webhooks'][number];

/** Webhook endpoints and their deliveries; create, enable/disable, rotate, test, retry for admins. */
export function WebhooksPage() {
  const { gw, scope } = useSession();
  const endpoints = useQuery({ queryKey: ['webhooks'], queryFn: async () => (await gw.webhooksList()).data });
  const [secret, setSecret] = useState<{ id: string; secret: string } | null>(null);
  const manage = can.webhooks(scope);
  return (
    <section>
      <h1>Webhooks</h1>
      {endpoints.isError && <p className="error">{describeError(endpoints.error)}</p>}
      {secret && <SecretOnce {...secret} onDone={() => setSecret(null)} />}
      {endpoints.data?.webhooks.length === 0 && <p className="muted">No endpoint yet.</p>}
      {endpoints.data?.webhooks.map((endpoint) => (
        <EndpointPanel key={endpoint.id} endpoint={endpoint} manage={manage} onSecret={setSecret} />
      ))}
      {manage && <CreateEndpoint onSecret={setSecret} />}
    </section>
  );
}

/** A new secret, shown this once. */
function SecretOnce({ id, secret, onDone }: { id: string; secret: string; onDone: () => void }) {
  return (
    <div className="new-key" role="status">
      <p>
        The signing secret of <span className="mono">{id}</span>, shown this once:
      </p>
      <code data-testid="webhook-secret">{secret}</code>{' '}
      <button type="button" onClick={onDone}>
        Done
      </button>
    </div>
  );
}

type OnSecret = (shown: { id: string; secret: string }) => void;

function EndpointPanel({
  endpoint,
  manage,
  onSecret,
}: {
  endpoint: Endpoint;
  manage: boolean;
  onSecret: OnSecret;
}) {
  return (
    <div className="panel wide" data-webhook={endpoint.id}>
      <h2 className="mono">{endpoint.url}</h2>
      <p>
        {endpoint.enabled ? (
          <span className="ok">enabled</span>
        ) : (
          <span className="error">
            disabled{endpoint.disabledReason ? ` (${endpoint.disabledReason})` : ''}
          </span>
        )}{' '}
        · events {endpoint.events === null ? 'all' : endpoint.events.join(', ')} · accounts{' '}
        {endpoint.accountIds === null ? 'all' : endpoint.accountIds.join(', ')}
        <span className="muted"> · {endpoint.id}</span>
      </p>
      {manage && <EndpointActions endpoint={endpoint} onSecret={onSecret} />}
      <Deliveries endpointId={endpoint.id} manage={manage} />
    </div>
  );
}

/** Enable or disable, rotate the secret (shown once), send a test event. */
function EndpointActions({ endpoint, onSecret }: { endpoint: Endpoint; onSecret: OnSecret }) {
  const { gw } = useSession();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['webhooks'] });
  const toggle = useMutation({
    mutationFn: () => gw.webhooksUpdate({ id: endpoint.id, body: { enabled: !endpoint.enabled } }),
    onSuccess: refresh,
  });
  const rotate = useMutation({
    mutationFn: async () => (await gw.webhooksRotateSecret({ id: endpoint.id })).data,
    onSuccess: (rotated) => onSecret({ id: rotated.id, secret: rotated.secret }),
  });
  const test = useMutation({ mutationFn: () => gw.webhooksTest({ id: endpoint.id }), onSuccess: refresh });
  const failure = toggle.error ?? rotate.error ?? test.error;
  return (
    <p>
      <button type="button" disabled={toggle.isPending} onClick={() => toggle.mutate()}>
        {endpoint.enabled ? 'Disable' : 'Enable'}
      </button>{' '}
      <button type="button" disabled={rotate.isPending} onClick={() => rotate.mutate()}>
        Rotate secret
      </button>{' '}
      <button type="button" disabled={test.isPending} onClick={() => test.mutate()}>
        Send a test
      </button>
      {test.isSuccess && <span className="ok"> test sent</span>}
      {failure && <span className="error"> {describeError(failure)}</span>}
    </p>
  );
}

/** `GET /webhooks/{id}/deliveries`: attempt, status code, time; Retry for admins. */
function Deliveries({ endpointId, manage }: { endpointId: string; manage: boolean }) {
  const { gw } = useSession();
  const queryClient = useQueryClient();
  const deliveries = useQuery({
    queryKey: ['webhooks', endpointId, 'deliveries'],
    queryFn: async () => (await gw.webhooksDeliveries({ id: endpointId, limit: 20 })).data,
    refetchInterval: 5_000,
  });
  const retry = useMutation({
    mutationFn: (deliveryId: string) => gw.webhooksDeliveryRetry({ id: endpointId, deliveryId }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['webhooks', endpointId, 'deliveries'] }),
  });
  if (deliveries.isError) return <p className="error">{describeError(deliveries.error)}</p>;
  if (!deliveries.data) return null;
  if (deliveries.data.deliveries.length === 0) return <p className="muted">No delivery yet.</p>;
  return (
    <table aria-label="Deliveries">
      <thead>
        <tr>
          <th>Event</th>
          <th>Attempt</th>
          <th>Status</th>
          <th>Code</th>
          <th>When</th>
          {manage && <th />}
        </tr>
      </thead>
      <tbody>
        {deliveries.data.deliveries.map((delivery) => (
          <tr key={`${delivery.deliveryId} ${delivery.attempt}`} data-delivery={delivery.deliveryId}>
            <td>{delivery.event}</td>
            <td>{delivery.attempt}</td>
            <td>{delivery.status}</td>
            <td>{delivery.httpStatus ?? delivery.error ?? '—'}</td>
            <td>{time(delivery.at)}</td>
            {manage && (
              <td>
                <button
                  type="button"
                  disabled={retry.isPending}
                  onClick={() => retry.mutate(delivery.deliveryId)}
                >
                  Retry
                </button>
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A new endpoint: URL and the events it wants (blank: every event). */
function CreateEndpoint({ onSecret }: { onSecret: OnSecret }) {
  const { gw } = useSession();
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: async (body: { url: string; events?: string[] }) => (await gw.webhooksCreate({ body })).data,
    onSuccess: (created) => {
      onSecret({ id: created.id, secret: created.secret });
      return queryClient.invalidateQueries({ queryKey: ['webhooks'] });
    },
  });
  const submit = (submitted: FormEvent<HTMLFormElement>) => {
    submitted.preventDefault();
    const form = new FormData(submitted.currentTarget);
    const events = String(form.get('events') ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    create.mutate({ url: String(form.get('url') ?? '').trim(), ...(events.length > 0 ? { events } : {}) });
  };
  return (
    <form className="panel" aria-label="Add an endpoint" onSubmit={submit}>
      <h2>Add an endpoint</h2>
      <label>
        URL <input name="url" type="url" required placeholder="https://example.com/hooks" />
      </label>
      <label>
        Events (comma-separated; blank for every event) <input name="events" />
      </label>
      <button type="submit" disabled={create.isPending}>
        Create endpoint
      </button>
      {create.isError && <p className="error">{describeError(create.error)}</p>}
    </form>
  );
}
