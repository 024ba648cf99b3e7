import { Upstream } from '@cg/contract';
import { type Static, Type } from 'typebox';
import { coerce, millsToCents, toLocations } from '../common/coerce';
import { idCursor, splitPage } from '../common/id-cursor';
import { AccountParams, Nullable, PlatformId } from '../common/schemas';
import { defineOperation, upstreamData } from '../define';

/** Offer items per page. The contract sets no page size; one extra is fetched to see if more exist. */
export const MEDIA_STATS_PAGE_SIZE = 25;
/** The platform's location type of a direct-message chat. */
const LOCATION_TYPE_DIRECT_MESSAGE = 4001;

const CURSOR_RULE = 'must be a nextCursor this endpoint answered (an item’s platform id)';

/** Media offer item (response.data[]). */
export const MediaOfferItem = Type.Object({
  id: Type.String(),
  mediaOfferId: Type.String(),
  mediaOfferType: Type.Number({ description: 'for example single media versus bundle' }),
  mediaOfferBundleId: Nullable(Type.String()),
  mediaId: Type.String(),
  mediaType: Type.Number({ description: 'for example image or video' }),
  previewId: Nullable(Type.String()),
  accountId: Type.String({ description: 'creator who sent the media' }),
  locationId: Type.String({ description: 'id of the chat' }),
  correlationId: Type.String({ description: 'the message that carried the offer' }),
  locationType: Type.Number({ description: 'for example direct message' }),
});
export type MediaOfferItem = Static<typeof MediaOfferItem>;

const MediaLocation = Type.Object({ locationId: Type.String(), location: Type.String() });

/** Account media (response.aggregationData.accountMedia[]). */
export const AccountMedia = Type.Object({
  id: Type.String(),
  mediaId: Type.String(),
  price: Type.Number({ description: 'unlock price in cents; 0 when not paywalled' }),
  deleted: Type.Boolean(),
  likeCount: Type.Number(),
  purchased: Type.Boolean(),
  whitelisted: Type.Boolean(),
  access: Type.Boolean(),
  media: Type.Object({
    id: Type.String(),
    type: Type.Number(),
    mimetype: Type.String(),
    filename: Type.String(),
    width: Type.Number(),
    height: Type.Number(),
    locations: Type.Array(MediaLocation),
    variants: Type.Array(
      Type.Object({
        id: Type.String(),
        type: Type.Number(),
        mimetype: Type.String(),
        width: Type.Number(),
        height: Type.Number(),
        locations: Type.Array(MediaLocation),
      }),
    ),
  }),
  // The contract says purchases are identified through saleStats without showing it; the platform
  // puts it on each account media, so it is passed on there, its money in cents like every price.
  saleStats: Type.Object({
    purchased: Type.Boolean(),
    purchasedAt: Nullable(Type.Number({ description: 'Unix ms' })),
    purchaseCount: Type.Number(),
    totalAmount: Type.Number({ description: 'cents' }),
  }),
});
export type AccountMedia = Static<typeof AccountMedia>;

const MediaStatsResponse = Type.Object({
  data: Type.Array(MediaOfferItem),
  aggregationData: Type.Object({ accountMedia: Type.Array(AccountMedia) }),
});

const { obj, arr, str, num, bool, nullableNum } = coerce;

/** An optional id: null whether the platform leaves it out, sends null or sends "". */
const idOrNull = (value: unknown): string | null => (value === '' ? null : coerce.nullableStr(value));

function toMediaOfferItem(value: unknown): MediaOfferItem {
  const raw = obj(value);
  return {
    id: str(raw.id),
    mediaOfferId: str(raw.mediaOfferId),
    mediaOfferType: num(raw.mediaOfferType),
    mediaOfferBundleId: idOrNull(raw.mediaOfferBundleId),
    mediaId: str(raw.mediaId),
    mediaType: num(raw.mediaType),
    previewId: idOrNull(raw.previewId),
    accountId: str(raw.accountId),
    locationId: str(raw.locationId),
    correlationId: str(raw.correlationId),
    locationType: num(raw.locationType),
  };
}

function toAccountMedia(value: unknown): AccountMedia {
  const raw = obj(value);
  const media = obj(raw.media);
  const sale = obj(raw.saleStats);
  return {
    id: str(raw.id),
    mediaId: str(raw.mediaId ?? media.id),
    // Upstream money is in mills (1/1000 USD); the contract's prices are cents.
    price: millsToCents(raw.price),
    deleted: bool(raw.deleted),
    likeCount: num(raw.likeCount),
    purchased: bool(raw.purchased),
    whitelisted: bool(raw.whitelisted),
    access: bool(raw.access),
    media: {
      id: str(media.id),
      type: num(media.type),
      mimetype: str(media.mimetype),
      filename: str(media.filename),
      width: num(media.width),
      height: num(media.height),
      locations: toLocations(media.locations),
      variants: arr(media.variants).map((v) => ({
        id: str(v.id),
        type: num(v.type),
        mimetype: str(v.mimetype),
        width: num(v.width),
        height: num(v.height),
        locations: toLocations(v.locations),
      })),
    },
    saleStats: {
      purchased: bool(sale.purchased ?? raw.purchased),
      purchasedAt: nullableNum(sale.purchasedAt),
      purchaseCount: num(sale.purchaseCount),
      totalAmount: millsToCents(sale.totalAmount),
    },
  };
}

export const chatMediaStats = defineOperation({
  name: 'chat-media-stats',
  method: 'GET',
  path: '/:accountId/chats/:chatId/media-stats',
  summary: 'Media the creator sent to a fan in one chat, newest first',
  tags: ['chats'],
  session: 'path',
  write: false,
  // The platform asks for a minute between two calls of an account and answers empty pages inside
  // it; identical requests while one is pending share its job rather than spend another gap.
  gapped: true,
  dedupe: ({ params, query }) => `${params.chatId}\n${query.cursor ?? ''}`,
  successStatus: 200,
  notFoundMessage: 'the chat does not exist on this account',
  schemas: {
    params: Type.Object({
      ...AccountParams.properties,
      chatId: PlatformId('the chat’s platform id (digits)'),
    }),
    querystring: Type.Object({
      cursor: Type.Optional(
        Type.String({ description: 'nextCursor of the previous page (the last offer item’s id)' }),
      ),
    }),
    // Here the contract puts nextCursor beside data.data, null after the last page.
    data: Upstream(MediaStatsResponse, { outer: { nextCursor: Nullable(Type.String()) } }),
  },
  check: ({ query }) => idCursor.check(query.cursor, CURSOR_RULE),
  run: async ({ params, query }, { call, account }) => {
    const fetched = obj(
      await call('mediaOffersByLocation', {
        query: {
          locationId: params.chatId,
          locationType: LOCATION_TYPE_DIRECT_MESSAGE,
          accountId: account?.platformAccountId,
          // `before` is the last item already read: items strictly older, newest first.
          before: idCursor.toUpstream(query.cursor) ?? '0',
          after: '0',
          limit: MEDIA_STATS_PAGE_SIZE + 1,
          offset: 0,
        },
      }),
    );
    const rawItems = arr(fetched.data);
    // The cursor is the last offer item's id.
    const page = splitPage(rawItems, MEDIA_STATS_PAGE_SIZE, (item) => str(item.id));
    const data = page.items.map(toMediaOfferItem);
    // The aggregation describes the items fetched, including the look-ahead one; keep only the
    // account media of the items returned, matched by the id the platform links them with.
    const linked = new Set(page.items.map((item) => str(item.accountMediaId)).filter(Boolean));
    const mediaIds = new Set(data.map((item) => item.mediaId));
    const accountMedia = arr(obj(fetched.aggregationData).accountMedia)
      .filter((m) => (linked.size > 0 ? linked.has(str(m.id)) : mediaIds.has(str(m.mediaId))))
      .map(toAccountMedia);
    return {
      ...upstreamData({ data, aggregationData: { accountMedia } }),
      // The platform answers an empty page inside its one-minute gap ("may return no data at
      // times"). A page asked for with a cursor had items when that cursor was given out (one more
      // was fetched to know it), so an empty one is that: the same cursor comes back, to ask again.
      nextCursor: page.next ?? (rawItems.length === 0 && query.cursor ? query.cursor : null),
    };
  },
});
