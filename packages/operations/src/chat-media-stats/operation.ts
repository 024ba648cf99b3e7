import { inResponse, Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { coerce } from '../common/coerce';
import { idCursor, splitPage } from '../common/id-cursor';
import { f, type RecordValue, record } from '../common/record';
import { AccountParams, EXAMPLE_ACCOUNT_ID, Nullable, PlatformId, Text } from '../common/schemas';
import { defineOperation, upstreamData } from '../define';

/** Offer items per page. The contract sets no page size; one extra is fetched to see if more exist. */
export const MEDIA_STATS_PAGE_SIZE = 25;
/** The platform's location type of a direct-message chat. */
const LOCATION_TYPE_DIRECT_MESSAGE = 4001;

const CURSOR_RULE = 'must be a nextCursor this endpoint answered (an item’s platform id)';

/** Media offer item (response.data[]). Its optional ids are null whether left out, null or "". */
export const MediaOfferItem = record({
  id: f.id(),
  mediaOfferId: f.id(),
  mediaOfferType: f.number('for example single media versus bundle'),
  mediaOfferBundleId: f.nullable(f.id(), { emptyIsNull: true }),
  mediaId: f.id(),
  mediaType: f.number('for example image or video'),
  previewId: f.nullable(f.id(), { emptyIsNull: true }),
  accountId: f.id('creator who sent the media'),
  locationId: f.id('id of the chat'),
  correlationId: f.id('the message that carried the offer'),
  locationType: f.number('for example direct message'),
});
export type MediaOfferItem = RecordValue<typeof MediaOfferItem>;

const MediaLocation = record({ locationId: f.id(), location: f.string() });

/** The file fields of an account media's media and of each of its variants. */
const MediaFile = record({
  id: f.id(),
  type: f.number(),
  mimetype: f.string(),
  filename: f.string(),
  width: f.number(),
  height: f.number(),
  locations: f.array(MediaLocation),
});
// Each variant of the media has the same fields but filename.
const { filename: _filename, ...variantFields } = MediaFile.fields;

/** Account media (response.aggregationData.accountMedia[]). */
export const AccountMedia = record({
  id: f.id(),
  mediaId: f.from((raw) => raw.mediaId ?? coerce.obj(raw.media).id, f.id()),
  // Upstream money is in mills (1/1000 USD); the contract's prices are cents.
  price: f.centsFromMills('unlock price in cents; 0 when not paywalled'),
  deleted: f.boolean(),
  likeCount: f.number(),
  purchased: f.boolean(),
  whitelisted: f.boolean(),
  access: f.boolean(),
  media: f.record(MediaFile.extend({ variants: f.array(record(variantFields)) })),
  // The contract says purchases are identified through saleStats without showing it; the platform
  // puts it on each account media, so it is passed on there, its money in cents like every price.
  saleStats: f.record(
    record({
      purchased: f.from((sale, media) => sale.purchased ?? media.purchased, f.boolean()),
      purchasedAt: f.nullable(f.timestamp()),
      purchaseCount: f.number(),
      totalAmount: f.centsFromMills(),
    }),
  ),
});
export type AccountMedia = RecordValue<typeof AccountMedia>;

const MediaStatsResponse = Type.Object({
  data: Type.Array(MediaOfferItem.schema),
  aggregationData: Type.Object({ accountMedia: Type.Array(AccountMedia.schema) }),
});

const { obj, arr, str } = coerce;

export const chatMediaStats = defineOperation({
  name: 'chat-media-stats',
  paging: { cursor: ['data', 'nextCursor'], items: inResponse('data') },
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
      cursor: Type.Optional(Text('nextCursor of the previous page (the last offer item’s id)')),
    }),
    // Here the contract puts nextCursor beside data.data, null after the last page.
    data: Upstream(MediaStatsResponse, { outer: { nextCursor: Nullable(Type.String()) } }),
  },
  example: {
    params: { accountId: EXAMPLE_ACCOUNT_ID, chatId: '788291264641499403' },
    query: { cursor: '820411632866398225' },
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
    const data = page.items.map(MediaOfferItem.from);
    // The aggregation describes the items fetched, including the look-ahead one; keep only the
    // account media of the items returned, matched by the id the platform links them with.
    const linked = new Set(page.items.map((item) => str(item.accountMediaId)).filter(Boolean));
    const mediaIds = new Set(data.map((item) => item.mediaId));
    const accountMedia = arr(obj(fetched.aggregationData).accountMedia)
      .filter((m) => (linked.size > 0 ? linked.has(str(m.id)) : mediaIds.has(str(m.mediaId))))
      .map(AccountMedia.from);
    return {
      ...upstreamData({ data, aggregationData: { accountMedia } }),
      // The platform answers an empty page inside its one-minute gap ("may return no data at
      // times"). A page asked for with a cursor had items when that cursor was given out (one more
      // was fetched to know it), so an empty one is that: the same cursor comes back, to ask again.
      nextCursor: page.next ?? (rawItems.length === 0 && query.cursor ? query.cursor : null),
    };
  },
});
