import {
  DeletedVaultAlbum,
  PayoutMethod,
  payoutDelete,
  VaultAlbum,
  VaultMedia,
  vaultAlbumDelete,
  vaultAlbums,
} from '@cg/operations/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, expectBadRequest, expectEnvelope, expectError } from '../support/assert';
import { connectWithSim, runCommonRouteTests } from '../support/common';
import { resetObservations, type SimSession, simFixture, simRequests } from '../support/sim';
import { account, gw, redisText, scanKeys, startStack, type TestStack } from '../support/stack';

let stack: TestStack;
let demoId: string;
let twofaId: string;
/** The sandbox's own API as each creator: the reference the gateway is held to. */
let demoSim: SimSession;
let twofaSim: SimSession;

beforeAll(async () => {
  stack = await startStack({ sim: { mediaOfferGapMs: 0 } });
  ({ accountId: demoId, sim: demoSim } = await connectWithSim(stack, 'creator_demo'));
  ({ accountId: twofaId, sim: twofaSim } = await connectWithSim(stack, 'creator_2fa'));
});
afterAll(async () => {
  await stack?.stop();
});

function pick(record: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((key) => [key, record[key]]));
}

/** The fields every album has (a listed one has lastSyncAt and deletedAt only when the platform sends them). */
const ALBUM_KEYS: string[] = VaultAlbum.schema.required;
const MEDIA_KEYS = Object.keys(VaultMedia.schema.properties);
const PAYOUT_KEYS = Object.keys(PayoutMethod.schema.properties);

/** A Unix ms time set by the platform while the test waited between `from` and `to`. */
function expectMsBetween(value: unknown, from: number, to: number) {
  expect(typeof value).toBe('number');
  expect(value as number).toBeGreaterThanOrEqual(from - 1000);
  expect(value as number).toBeLessThanOrEqual(to + 1000);
}

// ---- vault albums

describe('GET /{accountId}/vault/albums', () => {
  it('lists every album of the sandbox, standard ones first, with the vault media of their last items', async () => {
    const fixture = account(stack, 'creator_demo');
    const response = await gw(stack, 'GET', `/${demoId}/vault/albums`);
    expect(response.status).toBe(200);
    expectEnvelope(response.body, 200);
    expect(errorsOf(vaultAlbums.schemas.data, response.body.data)).toEqual([]);

    const { albums, aggregationData } = response.body.data.data.response;
    for (const album of albums) expect(errorsOf(VaultAlbum.schema, album)).toEqual([]);
    for (const media of aggregationData.media) expect(errorsOf(VaultMedia.schema, media)).toEqual([]);

    // Standard albums: All, Posts, Messages with their fixed types, then the user albums (type null).
    expect(albums.slice(0, 3).map((a: any) => [a.title, a.type])).toEqual([
      ['All', 38000],
      ['Posts', 1000],
      ['Messages', 5000],
    ]);
    expect(albums.slice(0, 3).map((a: any) => a.id)).toEqual(fixture.standardAlbumIds);
    const users = albums.slice(3);
    expect(users.length).toBeGreaterThanOrEqual(4);
    for (const album of users) expect(album.type).toBeNull();
    expect(users.map((a: any) => a.id)).toEqual(fixture.albumIds);
    for (const album of albums) {
      expect(album.accountId).toBe(fixture.platformAccountId);
      expect('deletedAt' in album).toBe(false);
    }

    // The same values as the platform's own answer (times are ms there and here).
    const upstream = await demoSim.get('/vault/albumsnew');
    expect(albums).toEqual(upstream.albums.map((a: any) => pick(a, ALBUM_KEYS)));
    const allAlbum = albums[0];
    expect(allAlbum.itemCount).toBe((fixture.counts as any).media);
    expect(allAlbum.createdAt).toBeGreaterThan(1_000_000_000_000);

    // aggregationData.media describes each distinct last item once.
    const lastItems = [...new Set(albums.map((a: any) => a.lastItemId))];
    expect(aggregationData.media.map((m: any) => m.id).sort()).toEqual([...lastItems].sort());
    expect(aggregationData.media).toEqual(
      upstream.aggregationData.media.map((m: any) => pick(m, MEDIA_KEYS)),
    );
    for (const media of aggregationData.media) {
      expect(JSON.parse(media.metadata)).toBeTypeOf('object');
      expect(media.locations[0].location.startsWith(`${stack.simUrl}/cdn/`)).toBe(true);
      expect(media.updatedAt).toBeGreaterThan(1_000_000_000_000);
    }
  });

  it('answers 404 for an account id that is not one of the caller’s, whatever its shape', async () => {
    expectError(await gw(stack, 'GET', '/not-an-account/vault/albums'), 404, 'NOT_FOUND');
  });

  runCommonRouteTests(
    () => stack,
    { method: 'GET', path: '/{accountId}/vault/albums' },
    () => demoId,
  );
});

describe('DELETE /{accountId}/vault/albums/{albumId}', () => {
  it('deletes a user album: the deleted album with deletedAt and lastSyncAt, gone from the next list', async () => {
    const fixture = account(stack, 'creator_demo');
    const albumId = (fixture.albumIds as string[])[0]!;
    const before = (await gw(stack, 'GET', `/${demoId}/vault/albums`)).body.data.data.response.albums;
    const listed = before.find((a: any) => a.id === albumId);
    expect(listed).toBeDefined();

    const from = Date.now();
    const response = await gw(stack, 'DELETE', `/${demoId}/vault/albums/${albumId}`);
    const to = Date.now();
    expect(response.status).toBe(200);
    expectEnvelope(response.body, 200);
    expect(errorsOf(vaultAlbumDelete.schemas.data, response.body.data)).toEqual([]);
    const deleted = response.body.data.data.response;
    expect(errorsOf(DeletedVaultAlbum.schema, deleted)).toEqual([]);
    expect(pick(deleted, ALBUM_KEYS)).toEqual({ ...listed, version: listed.version + 1 });
    expectMsBetween(deleted.deletedAt, from, to);
    expectMsBetween(deleted.lastSyncAt, from, to);

    const after = (await gw(stack, 'GET', `/${demoId}/vault/albums`)).body.data.data.response.albums;
    expect(after.map((a: any) => a.id)).toEqual(
      before.map((a: any) => a.id).filter((id: string) => id !== albumId),
    );
    expect((await simFixture(stack, 'creator_demo')).albumIds).not.toContain(albumId);
  });

  it('answers 404 for an album already deleted, and for an unknown one', async () => {
    const albumId = (account(stack, 'creator_demo').albumIds as string[])[0]!;
    const again = await gw(stack, 'DELETE', `/${demoId}/vault/albums/${albumId}`);
    expectError(again, 404, 'NOT_FOUND');
    expect(again.body.error).toBe('Not Found');
    expect(again.body.message).toContain('album');
    expectError(await gw(stack, 'DELETE', `/${demoId}/vault/albums/999999999999999999`), 404, 'NOT_FOUND');
  });

  it('refuses to delete a standard album with 403 FORBIDDEN_ACTION naming the rule, and keeps it', async () => {
    const fixture = account(stack, 'creator_demo');
    for (const albumId of fixture.standardAlbumIds as string[]) {
      const response = await gw(stack, 'DELETE', `/${demoId}/vault/albums/${albumId}`);
      expectError(response, 403, 'FORBIDDEN_ACTION');
      expect(response.body.message).toMatch(/standard albums/i);
    }
    const albums = (await gw(stack, 'GET', `/${demoId}/vault/albums`)).body.data.data.response.albums;
    expect(albums.slice(0, 3).map((a: any) => a.id)).toEqual(fixture.standardAlbumIds);
  });

  it('answers 400 naming albumId when it is malformed (404 for an unknown account), before enqueueing', async () => {
    const keys = (await scanKeys(stack.redis, stack.prefix)).sort();
    expectBadRequest(await gw(stack, 'DELETE', `/${demoId}/vault/albums/${'1'.repeat(65)}`), 'albumId');
    expectBadRequest(await gw(stack, 'DELETE', `/${demoId}/vault/albums/%20%20`), 'albumId');
    expectError(await gw(stack, 'DELETE', '/acct-bad!/vault/albums/1'), 404, 'NOT_FOUND');
    expect((await scanKeys(stack.redis, stack.prefix)).sort()).toEqual(keys);
  });

  runCommonRouteTests(
    () => stack,
    { method: 'DELETE', path: '/{accountId}/vault/albums/999999999999999999' },
    () => demoId,
  );
});

// ---- payout methods

describe('DELETE /{account_id}/payout/delete (account without a second factor)', () => {
  it('deletes a payout method: status 3, deletedAt in ms; the method is gone from the platform', async () => {
    const fixture = account(stack, 'creator_demo');
    const payoutMethodId = (fixture.payoutMethodIds as string[])[0]!;
    const upstreamBefore = (await demoSim.get('/payments/payoutmethods')) as any[];
    const existing = upstreamBefore.find((m) => m.id === payoutMethodId);
    expect(existing).toBeDefined();

    const from = Date.now();
    const response = await gw(stack, 'DELETE', `/${demoId}/payout/delete`, { body: { payoutMethodId } });
    const to = Date.now();
    expect(response.status).toBe(200);
    expectEnvelope(response.body, 200);
    expect(errorsOf(payoutDelete.schemas.data, response.body.data)).toEqual([]);
    const method = response.body.data.data.response;
    expect(errorsOf(PayoutMethod.schema, method)).toEqual([]);
    expect(Object.keys(method).sort()).toEqual([...PAYOUT_KEYS].sort());
    expect(method).toMatchObject({
      id: payoutMethodId,
      accountId: fixture.platformAccountId,
      providerId: existing.providerId,
      type: existing.type,
      flags: existing.flags,
      status: 3,
      metadata: existing.metadata,
      version: existing.version + 1,
    });
    expect(JSON.parse(method.metadata)).toBeTypeOf('object');
    expectMsBetween(method.deletedAt, from, to);
    // The method's personal data (holder, bank, email in `metadata`) is sealed in the job's result,
    // as it is kept in Redis for the job's retention and shown on the queue dashboard.
    const { bankName } = JSON.parse(method.metadata);
    expect(bankName).toEqual(expect.any(String));
    expect((await redisText(stack)).join('\n')).not.toContain(bankName);

    const upstreamAfter = (await demoSim.get('/payments/payoutmethods')) as any[];
    expect(upstreamAfter.map((m) => m.id)).toEqual(
      upstreamBefore.map((m) => m.id).filter((id) => id !== payoutMethodId),
    );
    expect((await simFixture(stack, 'creator_demo')).payoutMethodIds).not.toContain(payoutMethodId);
  });

  it('answers 404 for a payout method already deleted, and for an unknown one', async () => {
    const payoutMethodId = (account(stack, 'creator_demo').payoutMethodIds as string[])[0]!;
    const again = await gw(stack, 'DELETE', `/${demoId}/payout/delete`, { body: { payoutMethodId } });
    expectError(again, 404, 'NOT_FOUND');
    expect(again.body.message).toContain('payout method');
    const unknown = await gw(stack, 'DELETE', `/${demoId}/payout/delete`, {
      body: { payoutMethodId: '999999999999999999' },
    });
    expectError(unknown, 404, 'NOT_FOUND');
  });

  it('accepts a twofa it does not need, and deletes', async () => {
    const payoutMethodId = (account(stack, 'creator_demo').payoutMethodIds as string[])[1]!;
    const response = await gw(stack, 'DELETE', `/${demoId}/payout/delete`, {
      body: { payoutMethodId, twofa: { code: '123456', token: '' } },
    });
    expect(response.status).toBe(200);
    expect(response.body.data.data.response).toMatchObject({ id: payoutMethodId, status: 3 });
    const left = (await demoSim.get('/payments/payoutmethods')) as any[];
    expect(left.map((m) => m.id)).not.toContain(payoutMethodId);
  });

  it('answers 400 naming the field for bad bodies, before enqueueing', async () => {
    const keys = (await scanKeys(stack.redis, stack.prefix)).sort();
    const del = (body?: unknown) => gw(stack, 'DELETE', `/${demoId}/payout/delete`, { body });
    expectBadRequest(await del({}), 'payoutMethodId');
    expectBadRequest(await del({ payoutMethodId: 123 }), 'payoutMethodId');
    expectBadRequest(await del({ payoutMethodId: '' }), 'payoutMethodId');
    expectBadRequest(await del({ payoutMethodId: '   ' }), 'payoutMethodId');
    expectBadRequest(await del({ payoutMethodId: '1', twofa: 'x' }), 'twofa');
    expectBadRequest(await del({ payoutMethodId: '1', twofa: { token: 't' } }), 'code');
    expectBadRequest(await del({ payoutMethodId: '1', twofa: { code: '424242' } }), 'token');
    expectBadRequest(await del({ payoutMethodId: '1', twofa: { code: '', token: 't' } }), 'code');
    expectBadRequest(await del({ payoutMethodId: '1', twofa: { code: 424242, token: 't' } }), 'code');
    expect((await del()).status).toBe(400);
    expect((await scanKeys(stack.redis, stack.prefix)).sort()).toEqual(keys);
  });

  runCommonRouteTests(
    () => stack,
    { method: 'DELETE', path: '/{accountId}/payout/delete', body: { payoutMethodId: '999999999999999999' } },
    () => demoId,
  );
});

describe('DELETE /{account_id}/payout/delete (account with a second factor)', () => {
  const payoutMethodId = () => (account(stack, 'creator_2fa').payoutMethodIds as string[])[0]!;
  const stillThere = async () =>
    ((await twofaSim.get('/payments/payoutmethods')) as any[]).some((m) => m.id === payoutMethodId());

  /** A sensitive-action challenge asked of the platform itself (the gateway's send is paced). */
  const challenge = async (): Promise<string> => (await twofaSim.post('/twofa/session', {})).token;

  it('answers 409 naming the two steps without twofa, and deletes nothing', async () => {
    const response = await gw(stack, 'DELETE', `/${twofaId}/payout/delete`, {
      body: { payoutMethodId: payoutMethodId() },
    });
    expectError(response, 409, 'CONFLICT', 'twofa/session', 'twofa/session/verify');
    expect(await stillThere()).toBe(true);
  });

  it('answers 400 INVALID_2FA_CODE for a wrong code, and deletes nothing', async () => {
    const response = await gw(stack, 'DELETE', `/${twofaId}/payout/delete`, {
      body: { payoutMethodId: payoutMethodId(), twofa: { code: '000000', token: await challenge() } },
    });
    expectError(response, 400, 'INVALID_2FA_CODE');
    expect(await stillThere()).toBe(true);
  });

  it('deletes with a challenge and its code, taking the platform’s step-up verification first', async () => {
    const fixture = account(stack, 'creator_2fa');
    const token = await challenge();
    await resetObservations(stack);
    const response = await gw(stack, 'DELETE', `/${twofaId}/payout/delete`, {
      body: { payoutMethodId: payoutMethodId(), twofa: { code: fixture.twofaCode, token } },
    });
    expect(response.status).toBe(200);
    expectEnvelope(response.body, 200);
    const method = response.body.data.data.response;
    expect(errorsOf(PayoutMethod.schema, method)).toEqual([]);
    expect(method).toMatchObject({ id: payoutMethodId(), accountId: fixture.platformAccountId, status: 3 });
    expect(await stillThere()).toBe(false);
    const requests = await simRequests(stack, 'creator_2fa');
    expect(requests['POST /api/v1/twofa/session/verify']).toBe(1);
    expect(requests['POST /api/v1/payments/payoutmethod/delete']).toBe(1);

    const again = await gw(stack, 'DELETE', `/${twofaId}/payout/delete`, {
      body: {
        payoutMethodId: payoutMethodId(),
        twofa: { code: fixture.twofaCode, token: await challenge() },
      },
    });
    expectError(again, 404, 'NOT_FOUND');
  });

  it('keeps the two-factor code out of Redis in plaintext (the input is sealed)', async () => {
    const code = account(stack, 'creator_2fa').twofaCode!;
    const haystack = await redisText(stack);
    expect(haystack.length).toBeGreaterThan(0);
    expect(haystack.join('\n').includes(code), 'the two-factor code is stored in plaintext').toBe(false);
  });
});
