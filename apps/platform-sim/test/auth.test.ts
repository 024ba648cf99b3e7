import { describe, expect, it } from 'vitest';
import { SNOWFLAKE, sleep, useSim } from './support';

const sim = useSim({}, { resetEach: true });

function decodeToken(token: string): string[] {
  return Buffer.from(token, 'base64').toString('utf8').split(':');
}

describe('device id', () => {
  it('needs no headers and returns a fresh snowflake each time', async () => {
    const first = await sim.client.call('GET', '/api/v1/device/id');
    const second = await sim.client.call('GET', '/api/v1/device/id');
    expect(first.status).toBe(200);
    expect(first.body.success).toBe(true);
    expect(first.body.response).toMatch(SNOWFLAKE);
    expect(second.body.response).not.toBe(first.body.response);
  });
});

describe('login', () => {
  it('returns a session whose token is base64 of <sessionId>:1:2:<hash>', async () => {
    const result = await sim.client.call('POST', '/api/v1/login', {
      body: { username: 'creator_demo', password: 'sandbox-password', deviceId: '123' },
    });
    expect(result.status).toBe(200);
    const session = result.body.response.session;
    expect(session).toMatchObject({
      accountId: expect.stringMatching(SNOWFLAKE),
      deviceId: '123',
      metadata: null,
      checkToken: null,
    });
    expect(typeof session.status).toBe('number');
    expect(typeof session.ip).toBe('string');
    const [sessionId, one, two, hash] = decodeToken(session.token);
    expect(sessionId).toBe(session.id);
    expect([one, two]).toEqual(['1', '2']);
    expect(hash).toMatch(/^[0-9a-f]{32}$/);
    const fixtures = await sim.client.fixtures();
    expect(session.accountId).toBe(fixtures.accounts[0].platformAccountId);
  });

  it('rejects a wrong password and an unknown user with 400 code 1', async () => {
    for (const body of [
      { username: 'creator_demo', password: 'wrong', deviceId: '1' },
      { username: 'nobody_here', password: 'sandbox-password', deviceId: '1' },
    ]) {
      const result = await sim.client.call('POST', '/api/v1/login', { body });
      expect(result.status).toBe(400);
      expect(result.body).toEqual({
        success: false,
        error: { code: 1, details: 'Incorrect username or password.' },
      });
    }
  });

  it('answers a body without credentials with 400 code 10', async () => {
    const result = await sim.client.call('POST', '/api/v1/login', { body: { username: 'creator_demo' } });
    expect(result.status).toBe(400);
    expect(result.body.error.code).toBe(10);
  });

  it('gives a new token on every login and keeps older ones valid', async () => {
    const first = await sim.client.login();
    const second = await sim.client.login();
    expect(second).not.toBe(first);
    expect((await sim.client.call('GET', '/api/v1/account/me', { token: first })).status).toBe(200);
    expect((await sim.client.call('GET', '/api/v1/account/me', { token: second })).status).toBe(200);
  });
});

describe('authenticated calls', () => {
  it('answers a missing authorization header with 400 code 99', async () => {
    const result = await sim.client.call('GET', '/api/v1/account/me');
    expect(result.status).toBe(400);
    expect(result.body).toEqual({
      success: false,
      error: { code: 99, details: 'missing parameter "sessionToken"' },
    });
  });

  it('requires each fansly-client header (400 code 98)', async () => {
    const token = await sim.client.login();
    for (const missing of ['fansly-client-id', 'fansly-client-ts', 'fansly-client-check']) {
      const headers: Record<string, string> = {
        authorization: token,
        'fansly-client-id': '1',
        'fansly-client-ts': '1',
        'fansly-client-check': 'x',
      };
      delete headers[missing];
      const result = await sim.client.call('GET', '/api/v1/account/me', { headers });
      expect(result.status).toBe(400);
      expect(result.body.error).toEqual({ code: 98, details: `missing header "${missing}"` });
    }
  });

  it('answers an unknown token with 401', async () => {
    const forged = Buffer.from('123456789012345678:1:2:deadbeef').toString('base64');
    const result = await sim.client.call('GET', '/api/v1/account/me', { token: forged });
    expect(result.status).toBe(401);
    expect(result.body).toEqual({ success: false, error: { code: 401, details: 'invalid session' } });
  });

  it('expires tokens after sessionTtlMs when configured', async () => {
    await sim.client.control('POST', '/config', { sessionTtlMs: 150 });
    const token = await sim.client.login();
    expect((await sim.client.call('GET', '/api/v1/account/me', { token })).status).toBe(200);
    await sleep(250);
    expect((await sim.client.call('GET', '/api/v1/account/me', { token })).status).toBe(401);
  });

  it('keeps at most 100 sessions per account, ending the oldest', async () => {
    const first = await sim.client.login();
    for (let i = 0; i < 100; i++) await sim.client.login();
    expect((await sim.client.call('GET', '/api/v1/account/me', { token: first })).status).toBe(401);
  });

  it('answers an unknown /api/v1 route with the 404 envelope', async () => {
    const token = await sim.client.login();
    const result = await sim.client.call('GET', '/api/v1/no/such/route', { token });
    expect(result.status).toBe(404);
    expect(result.body).toEqual({ success: false, error: { code: 404, details: 'route not found' } });
  });
});

describe('second factor', () => {
  async function startTwofa(): Promise<{ token: string; email: string }> {
    const result = await sim.client.call('POST', '/api/v1/login', {
      body: { username: 'creator_2fa', password: 'sandbox-password', deviceId: '1' },
    });
    expect(result.status).toBe(200);
    expect(result.body.response.session).toBeUndefined();
    return result.body.response.twofa;
  }

  it('asks creator_2fa for a code and masks the e-mail', async () => {
    const twofa = await startTwofa();
    expect(twofa.token.length).toBeGreaterThan(10);
    expect(twofa.email).toBe('c*****@example.com');
  });

  it('rejects a wrong code (400 code 2) and accepts 424242 once', async () => {
    const twofa = await startTwofa();
    const wrong = await sim.client.call('POST', '/api/v1/login/twofa', {
      body: { token: twofa.token, code: '111111' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toEqual({ code: 2, details: 'Invalid two-factor code.' });

    const right = await sim.client.call('POST', '/api/v1/login/twofa', {
      body: { token: twofa.token, code: '424242' },
    });
    expect(right.status).toBe(200);
    const session = right.body.response;
    expect(session).toMatchObject({
      id: expect.stringMatching(SNOWFLAKE),
      accountId: expect.stringMatching(SNOWFLAKE),
    });
    expect(decodeToken(session.token)[0]).toBe(session.id);
    expect(
      (await sim.client.call('GET', '/api/v1/account/me', { token: session.token })).body.response.account
        .username,
    ).toBe('creator_2fa');

    const reused = await sim.client.call('POST', '/api/v1/login/twofa', {
      body: { token: twofa.token, code: '424242' },
    });
    expect(reused.status).toBe(400);
    expect(reused.body.error.code).toBe(3);
  });

  it('expires second-factor tokens (400 code 3)', async () => {
    await sim.client.control('POST', '/config', { twofaTokenTtlMs: 100 });
    const twofa = await startTwofa();
    await sleep(200);
    const late = await sim.client.call('POST', '/api/v1/login/twofa', {
      body: { token: twofa.token, code: '424242' },
    });
    expect(late.status).toBe(400);
    expect(late.body.error).toEqual({ code: 3, details: 'Two-factor token expired.' });
    const unknown = await sim.client.call('POST', '/api/v1/login/twofa', {
      body: { token: 'nope', code: '424242' },
    });
    expect(unknown.body.error.code).toBe(3);
  });

  /** A sensitive-action challenge of `token`'s account: its token. */
  async function challenge(token: string, body: unknown = {}): Promise<string> {
    return (await sim.client.api('POST', '/twofa/session', token, body)).token;
  }

  it('sends a step-up challenge: by the app (type 0), or by e-mail (type 2, masked address)', async () => {
    const token = await sim.client.login('creator_2fa');
    const app = await sim.client.api('POST', '/twofa/session', token, {});
    expect(app).toEqual({ token: expect.any(String), type: 0, email: null });
    const email = await sim.client.api('POST', '/twofa/session', token, { useEmailTwoFAFallback: true });
    expect(email).toEqual({ token: expect.any(String), type: 2, email: 'c*****@example.com' });
    expect(email.token).not.toBe(app.token);
    const bad = await sim.client.call('POST', '/api/v1/twofa/session', {
      token,
      body: { useEmailTwoFAFallback: 'yes' },
    });
    expect(bad.body.error).toEqual({ code: 10, details: 'invalid field "useEmailTwoFAFallback"' });
  });

  it('deletes a payout method of creator_2fa only with a live grant of its own and the right code', async () => {
    const token = await sim.client.login('creator_2fa');
    const fixtures = await sim.client.fixtures();
    const payoutMethodId = fixtures.accounts[1].payoutMethodIds[0];
    const del = (body: unknown) =>
      sim.client.call('POST', '/api/v1/payments/payoutmethod/delete', { token, body });

    const missing = await del({ payoutMethodId });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe(4);
    const emptyToken = await del({ payoutMethodId, twofa: { code: '424242', token: '' } });
    expect(emptyToken.body.error.code).toBe(4);
    // A challenge token is not a grant: it must be verified first.
    const unverified = await challenge(token);
    expect(
      (await del({ payoutMethodId, twofa: { code: '424242', token: unverified } })).body.error.code,
    ).toBe(3);

    const verify = await sim.client.call('POST', '/api/v1/twofa/session/verify', {
      token,
      body: { token: unverified, code: '424242', mode: 1 },
    });
    expect(verify.status).toBe(200);
    const grant = verify.body.response.token;
    expect(typeof grant).toBe('string');

    const wrong = await del({ payoutMethodId, twofa: { code: '000000', token: grant } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe(2);
    // A refused deletion (unknown method) leaves the grant usable.
    expect((await del({ payoutMethodId: '1', twofa: { code: '424242', token: grant } })).status).toBe(404);
    const ok = await del({ payoutMethodId, twofa: { code: '424242', token: grant } });
    expect(ok.status).toBe(200);
    expect(ok.body.response).toMatchObject({ id: payoutMethodId, status: 3, deletedAt: expect.any(Number) });
    const spent = await del({
      payoutMethodId: fixtures.accounts[1].payoutMethodIds[1],
      twofa: { code: '424242', token: grant },
    });
    expect(spent.body.error.code).toBe(3);
  });

  it('verifies a challenge once: unknown or another account’s 404, expired 400 code 3, wrong code 400 code 2', async () => {
    const token2fa = await sim.client.login('creator_2fa');
    const verify = (token: string, body: unknown) =>
      sim.client.call('POST', '/api/v1/twofa/session/verify', { token, body });
    const unknown = await verify(token2fa, { token: 'nope', code: '424242' });
    expect(unknown.status).toBe(404);
    const issued = await challenge(token2fa);
    const wrong = await verify(token2fa, { token: issued, code: '1' });
    expect(wrong.body.error.code).toBe(2);
    expect((await verify(token2fa, { token: issued, code: '424242' })).status).toBe(200);
    expect((await verify(token2fa, { token: issued, code: '424242' })).status).toBe(404);

    await sim.client.control('POST', '/config', { twofaTokenTtlMs: 100 });
    const late = await challenge(token2fa);
    await sleep(150);
    expect((await verify(token2fa, { token: late, code: '424242' })).body.error).toEqual({
      code: 3,
      details: 'Two-factor token expired.',
    });

    const demo = await sim.client.login('creator_demo');
    const refused = await verify(demo, { token: issued, code: '424242' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe(20);
    const noChallenge = await sim.client.call('POST', '/api/v1/twofa/session', { token: demo, body: {} });
    expect(noChallenge.status).toBe(403);
  });
});
