import { ApiKeyStore, storeKeys } from '@cg/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCredentials } from '../support/common';
import { sleep } from '../support/processes';
import { account, gw, startStack, type TestStack } from '../support/stack';

let stack: TestStack;
const admin = `Basic ${Buffer.from('admin:admin-password-for-tests').toString('base64')}`;

beforeAll(async () => {
  stack = await startStack({ env: { API_KEY_CACHE_MS: '300' } });
});
afterAll(async () => {
  await stack?.stop();
});

describe('API keys', () => {
  it('stops working within the cache time once revoked', async () => {
    const keys = new ApiKeyStore(stack.redis, storeKeys(stack.prefix));
    const { key, info } = await keys.create('t3');
    expect((await gw(stack, 'GET', '/accounts', { key })).status).toBe(200);
    await keys.revoke(info.keyId);
    await sleep(400);
    expect((await gw(stack, 'GET', '/accounts', { key })).status).toBe(401);
  });
});

describe('operations surface', () => {
  it('answers /healthz', async () => {
    const response = await fetch(`${stack.apiUrl}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', redis: 'ok' });
  });

  it('keeps Bull Board behind the admin credential', async () => {
    const refused = await fetch(`${stack.apiUrl}/admin/queues`);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({
      statusCode: 401,
      error: 'Unauthorized',
      code: 'UNAUTHORIZED',
      requestId: expect.stringMatching(/^req_/),
    });
    const wrong = `Basic ${Buffer.from('admin:nope').toString('base64')}`;
    expect((await fetch(`${stack.apiUrl}/admin/queues`, { headers: { authorization: wrong } })).status).toBe(
      401,
    );
    const page = await fetch(`${stack.apiUrl}/admin/queues`, { headers: { authorization: admin } });
    expect(page.status).toBe(200);
  });

  it('shows every queue the gateway runs', async () => {
    const response = await fetch(`${stack.apiUrl}/admin/queues/api/queues`, {
      headers: { authorization: admin },
    });
    expect(response.status).toBe(200);
    const { queues } = (await response.json()) as { queues: { name: string }[] };
    expect(queues.map((shown) => shown.name).sort()).toEqual(['listen', 'operations', 'webhooks']);
  });

  it('shows jobs on the board with no secret in them', async () => {
    const twofa = account(stack, 'creator_2fa');
    const credentials = connectCredentials(stack, 'creator_2fa', 'Two', 'GB');
    const started = await gw(stack, 'POST', '/connect', { body: credentials });
    const done = await gw(stack, 'POST', '/verify-2fa', {
      body: { ...credentials, twoFactorToken: started.body.data.twofa_token, twoFactorCode: twofa.twofaCode },
    });
    expect(done.status).toBe(201);
    const token = done.body.data.data.response.token as string;

    const response = await fetch(
      `${stack.apiUrl}/admin/queues/api/queues?activeQueue=operations&status=completed&page=1`,
      {
        headers: { authorization: admin },
      },
    );
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('verify-2fa');
    for (const secret of [twofa.password, twofa.twofaCode!, token, started.body.data.twofa_token]) {
      expect(text.includes(secret)).toBe(false);
    }
  });

  it('publishes an OpenAPI 3.1 document of every route', async () => {
    const response = await fetch(`${stack.apiUrl}/openapi.json`);
    expect(response.status).toBe(200);
    const doc = (await response.json()) as {
      openapi: string;
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    expect(doc.openapi).toBe('3.1.0');
    const ids = Object.values(doc.paths).flatMap((methods) =>
      Object.values(methods).map((op) => op.operationId),
    );
    expect(ids).toEqual(
      expect.arrayContaining([
        'connect',
        'verify-2fa',
        'accounts-by-ids',
        'me',
        'job-status',
        'list-accounts',
      ]),
    );
    expect((await fetch(`${stack.apiUrl}/docs`)).status).toBeLessThan(400);
  });
});
