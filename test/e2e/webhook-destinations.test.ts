import type { DeliveryAttempt } from '@cg/events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoopbackReceiver, loopbackReceiver, stubResolver } from '../support/destinations';
import { eventually } from '../support/processes';
import { gw, startStack, type TestStack } from '../support/stack';

// Webhook URLs with WEBHOOK_ALLOW_PRIVATE off (the default), names resolved by a stub in the API and
// in the delivery process (in-process), never by the network.
const PUBLIC = '93.184.215.14';
const resolver = stubResolver({
  '127.0.0.1.nip.io': [['127.0.0.1']],
  'hooks.example.com': [[PUBLIC]],
  // Public when the endpoint is created, loopback by the time it is delivered to.
  'rebind.example.com': [[PUBLIC], ['127.0.0.1']],
});
let stack: TestStack;
let receiver: LoopbackReceiver;

beforeAll(async () => {
  receiver = await loopbackReceiver();
  stack = await startStack({
    worker: false,
    webhooks: true,
    lookup: resolver.lookup,
  });
});
afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

const refused = [
  'http://hooks.example.com/in',
  'https://127.0.0.1/in',
  'https://10.0.0.8/in',
  'https://169.254.169.254/latest/meta-data',
  'https://localhost:8443/in',
  'https://localhost.:9301/',
  'https://LOCALHOST/',
  'https://127.0.0.1.nip.io:9301/',
  'https://[::1]/',
  'https://[::ffff:127.0.0.1]/',
  'https://0x7f.0.0.1/',
];

/** A 400 in the error shape, saying what is wrong with the URL. */
function expectRefusal(response: { status: number; body: any }, url: string) {
  expect(response.status, url).toBe(400);
  expect(response.body, url).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'BAD_REQUEST' });
  expect(response.body.message, url).toMatch(
    url.startsWith('http:') ? /must be https/ : /private, loopback or link-local/,
  );
}

describe('webhook URLs with WEBHOOK_ALLOW_PRIVATE off', () => {
  it('creation refuses hosts that are or resolve to loopback or private, in any spelling; stores nothing', async () => {
    for (const url of refused) expectRefusal(await gw(stack, 'POST', '/webhooks', { body: { url } }), url);
    const named = await gw(stack, 'POST', '/webhooks', { body: { url: 'https://127.0.0.1.nip.io:9301/' } });
    expect(named.body.message).toBe(
      'url host 127.0.0.1.nip.io resolves to a private, loopback or link-local address',
    );
    expect((await gw(stack, 'GET', '/webhooks')).body.data.webhooks).toEqual([]);
  });

  it('creation takes a public https URL, and a name that does not resolve yet', async () => {
    for (const url of ['https://hooks.example.com/in', 'https://not-live-yet.example.com/in']) {
      const created = await gw(stack, 'POST', '/webhooks', { body: { url } });
      expect(created.status, url).toBe(201);
      expect(created.body.data.url).toBe(url);
      await gw(stack, 'DELETE', `/webhooks/${created.body.data.id}`);
    }
  });

  it('an update refuses them too and changes nothing', async () => {
    const url = 'https://hooks.example.com/update';
    const created = await gw(stack, 'POST', '/webhooks', { body: { url } });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    for (const bad of [...refused, 'https://192.168.0.1/'])
      expectRefusal(
        await gw(stack, 'PATCH', `/webhooks/${id}`, { body: { url: bad, description: 'moved' } }),
        bad,
      );
    expect((await gw(stack, 'GET', `/webhooks/${id}`)).body.data).toMatchObject({ url, description: '' });
    await gw(stack, 'DELETE', `/webhooks/${id}`);
  });

  it('a name re-pointed to loopback after creation is refused at each delivery; the receiver gets nothing', async () => {
    const url = `https://rebind.example.com:${receiver.port}/in?token=tok-s3cr3t`;
    const created = await gw(stack, 'POST', '/webhooks', { body: { url } });
    expect(created.status).toBe(201);
    const { id } = created.body.data;
    const attemptsAfter = (count: number) =>
      eventually(async () => {
        const page = await gw(stack, 'GET', `/webhooks/${id}/deliveries`);
        const list = page.body.data.deliveries as DeliveryAttempt[];
        return list.length === count ? list : undefined;
      }, 5_000);
    const test = await gw(stack, 'POST', `/webhooks/${id}/test`);
    expect(test.status).toBe(200);
    await attemptsAfter(1);
    const retry = await gw(stack, 'POST', `/webhooks/${id}/deliveries/${test.body.data.deliveryId}/retry`);
    expect(retry.status).toBe(200);
    const attempts = await attemptsAfter(2);
    for (const attempt of attempts) {
      expect(attempt).toMatchObject({ status: 'failed', httpStatus: null });
      expect(attempt.error).toBe(
        'destination refused: rebind.example.com resolves to a private, loopback or link-local address',
      );
    }
    expect(JSON.stringify(attempts)).not.toMatch(/tok-s3cr3t|whsec_|127\.0\.0\.1/);
    expect(receiver.connections).toBe(0);
    // Checked once at creation, then resolved once by each attempt's own connection.
    expect(resolver.asked.filter((name) => name === 'rebind.example.com')).toHaveLength(3);
  });
});
