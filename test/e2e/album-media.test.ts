import {
  ALBUM_MEDIA_PAGE_SIZE,
  type AlbumMediaItem,
  VaultMedia,
  vaultAlbumMedia,
} from '@cg/operations/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, expectBadRequest, expectError, expectNotFound, expectSuccess } from '../support/assert';
import { connectWithSim, runCommonRouteTests } from '../support/common';
import type { SimSession } from '../support/sim';
import { account, gw, scanKeys, startStack, type TestStack } from '../support/stack';

let stack: TestStack;
let accountId: string;
/** The sandbox's own API as creator_demo: the reference the gateway is held to. */
let sim: SimSession;

beforeAll(async () => {
  stack = await startStack();
  ({ accountId, sim } = await connectWithSim(stack, 'creator_demo'));
});
afterAll(async () => {
  await stack?.stop();
});

interface Album {
  id: string;
  title: string;
  type: number | null;
  itemCount: number;
  lastItemId: string;
}

const page = (albumId: string, cursor?: string) =>
  gw(stack, 'GET', `/${accountId}/vault/albums/${albumId}/media${cursor ? `?cursor=${cursor}` : ''}`);

async function albums(): Promise<Album[]> {
  const response = await gw(stack, 'GET', `/${accountId}/vault/albums`);
  expectSuccess(response);
  return response.body.data.data.response.albums;
}

/** Every page of an album, following each cursor to the last page; checks each page on the way. */
async function readAll(albumId: string): Promise<{ items: AlbumMediaItem[]; pages: number }> {
  const items: AlbumMediaItem[] = [];
  let cursor: string | undefined;
  for (let pages = 1; pages <= 50; pages++) {
    const response = await page(albumId, cursor);
    expectSuccess(response);
    expect(errorsOf(vaultAlbumMedia.schemas.data, response.body.data)).toEqual([]);
    const { media, cursor: next } = response.body.data.data.response;
    items.push(...media);
    if (next === null) return { items, pages };
    // A page with a next cursor is full, and the cursor is its last item.
    expect(media).toHaveLength(ALBUM_MEDIA_PAGE_SIZE);
    expect(next).toBe(media.at(-1).id);
    cursor = next;
  }
  throw new Error(`album ${albumId} did not end within 50 pages`);
}

const newestFirst = (ids: string[]) => ids.every((id, n) => n === 0 || BigInt(ids[n - 1]!) > BigInt(id));

describe('GET /{accountId}/vault/albums/{albumId}/media', () => {
  it('pages every album to its end: its itemCount items, once each, newest first, its last item first', async () => {
    const fixture = account(stack, 'creator_demo');
    const mediaIds = new Set(fixture.mediaIds as string[]);
    const all = await albums();
    expect(all.length).toBeGreaterThanOrEqual(7);
    for (const album of all) {
      const { items, pages } = await readAll(album.id);
      const ids = items.map((item) => item.id);
      expect(new Set(ids).size, album.title).toBe(ids.length);
      expect(items, album.title).toHaveLength(album.itemCount);
      expect(pages, album.title).toBe(Math.max(1, Math.ceil(album.itemCount / ALBUM_MEDIA_PAGE_SIZE)));
      expect(newestFirst(ids), album.title).toBe(true);
      expect(items[0]?.mediaId, album.title).toBe(album.lastItemId);
      for (const item of items) {
        expect(mediaIds.has(item.mediaId), `${album.title}: ${item.mediaId}`).toBe(true);
        expect(errorsOf(VaultMedia.schema, item.media)).toEqual([]);
        expect(item.media.id).toBe(item.mediaId);
        expect(item.mediaType).toBe(item.media.type);
        expect([1, 2]).toContain(item.mediaType);
        expect(item.media.locations[0]?.location).toMatch(/^https?:\/\//);
      }
      // A media is filed in an album once.
      expect(new Set(items.map((item) => item.mediaId)).size, album.title).toBe(items.length);
    }
  });

  it('lists the whole vault in the All album, which the platform lists by type rather than by id', async () => {
    const fixture = account(stack, 'creator_demo');
    const allAlbumId = fixture.allAlbumId as string;
    const { items } = await readAll(allAlbumId);
    expect(items.map((item) => item.mediaId).sort()).toEqual([...(fixture.mediaIds as string[])].sort());
    // Asked by its id, the platform lists nothing for the All album: the gateway had to ask by type.
    const byId = await sim.get('/media/vaultnew', { albumId: allAlbumId, before: 0, after: 0 });
    expect(byId.albumMedia).toEqual([]);
    const byType = await sim.get('/media/vaultnew', { type: 38000, before: 0, after: 0 });
    expect(items.slice(0, ALBUM_MEDIA_PAGE_SIZE).map((item) => item.id)).toEqual(
      byType.albumMedia.map((item: { id: string }) => item.id),
    );
  });

  it('answers what the platform lists for a user album, with the vault media it holds', async () => {
    const albumId = (account(stack, 'creator_demo').albumIds as string[])[1]!;
    const response = await page(albumId);
    expectSuccess(response);
    const { media } = response.body.data.data.response;
    const upstream = await sim.get('/media/vaultnew', { albumId, before: 0, after: 0 });
    expect(media.map((item: AlbumMediaItem) => [item.id, item.mediaId, item.mediaType])).toEqual(
      upstream.albumMedia.map((item: any) => [item.id, item.mediaId, item.mediaType]),
    );
    const vault = new Map(upstream.media.map((m: any) => [m.id, m]));
    for (const item of media as AlbumMediaItem[]) {
      expect(item.media).toEqual(VaultMedia.from(vault.get(item.mediaId)));
      // The platform's album item has no preview: the contract's previewId is null then.
      expect(item.previewId).toBeNull();
    }
  });

  it('starts a page after the cursor: the rest of the album, nothing before it', async () => {
    const albumId = account(stack, 'creator_demo').allAlbumId as string;
    const { items } = await readAll(albumId);
    const from = items[7]!.id;
    const response = await page(albumId, from);
    expectSuccess(response);
    const ids = response.body.data.data.response.media.map((item: AlbumMediaItem) => item.id);
    expect(ids).toEqual(items.slice(8, 8 + ALBUM_MEDIA_PAGE_SIZE).map((item) => item.id));
  });

  it('answers 404 for an unknown album and for one deleted since', async () => {
    expectNotFound(await page('999999999999999999'), 'album');
    const albumId = (account(stack, 'creator_demo').albumIds as string[])[0]!;
    expectSuccess(await page(albumId));
    expectSuccess(await gw(stack, 'DELETE', `/${accountId}/vault/albums/${albumId}`));
    expectNotFound(await page(albumId), 'album');
  });

  it('answers 400 naming the field for a malformed cursor or albumId, before enqueueing', async () => {
    const albumId = (account(stack, 'creator_demo').albumIds as string[])[1]!;
    const keys = (await scanKeys(stack.redis, stack.prefix)).sort();
    expectBadRequest(await page(albumId, 'abc'), 'cursor');
    expectBadRequest(await page(albumId, '-5'), 'cursor');
    expectBadRequest(await page('1'.repeat(65)), 'albumId');
    expectError(await gw(stack, 'GET', `/acct-bad!/vault/albums/${albumId}/media`), 404, 'NOT_FOUND');
    expect((await scanKeys(stack.redis, stack.prefix)).sort()).toEqual(keys);
  });

  runCommonRouteTests(
    () => stack,
    { method: 'GET', path: '/{accountId}/vault/albums/999999999999999999/media' },
    () => accountId,
  );
});
