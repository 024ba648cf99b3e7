import { GatewayError } from '@cg/contract';
import { AccountMedia } from '../chat-media-stats/operation';
import type { OperationContext } from '../define';
import { coerce, type Raw } from './coerce';
import { type MediaPermissions, mediaRefs, upstreamPermissions } from './media-permissions';

const { obj, arr, str } = coerce;

/** Attachment contentType of an account-media offer (one media) and of a bundle offer (several). */
export const ATTACHMENT_ACCOUNT_MEDIA = 1;
export const ATTACHMENT_BUNDLE = 2;

export interface OfferAttachment {
  messageId: null;
  pos: number;
  contentId: string;
  contentType: number;
}

/** A media's offer model: only the creator is whitelisted (a whitelisted fan would get it free). */
function offerModel(ref: { mediaId: string; previewId: string | null }, creatorId: string) {
  return {
    mediaId: ref.mediaId,
    previewId: ref.previewId,
    permissionFlags: 0,
    price: 0,
    whitelist: creatorId === '' ? [] : [{ accountId: creatorId, permissionFlags: 0 }],
  };
}

/**
 * The account-media records of one media under the body's permissions (`POST /account/media`, an
 * array body answered by an array).
 */
export async function createAccountMedia(
  body: MediaPermissions,
  creatorId: string,
  call: OperationContext['call'],
): Promise<Record<string, unknown>[]> {
  const [single] = mediaRefs(body);
  if (!single) throw new GatewayError('INTERNAL', 'an account media needs a media');
  const permissions = { permissionFlags: upstreamPermissions(body) };
  return arr(
    await call('accountMediaCreate', {
      body: [{ ...offerModel(single, creatorId), permissions, tags: [] }],
    }),
  );
}

/**
 * The media offer a message carries: one account-media offer for one media, a bundle offer for
 * several (`POST /account/media/bundle`).
 */
async function createOffer(
  body: MediaPermissions,
  creatorId: string,
  call: OperationContext['call'],
): Promise<{ contentId: string; contentType: number }> {
  const media = mediaRefs(body);
  if (media.length === 1) {
    const created = await createAccountMedia(body, creatorId, call);
    return { contentId: str(created[0]?.id), contentType: ATTACHMENT_ACCOUNT_MEDIA };
  }
  const created = obj(
    await call('accountMediaBundleCreate', {
      body: {
        previewId: null,
        permissionFlags: 0,
        price: 0,
        accountMediaModels: media.map((ref) => offerModel(ref, creatorId)),
        whitelist: creatorId === '' ? [] : [{ accountId: creatorId, permissionFlags: 0 }],
        permissions: { permissionFlags: upstreamPermissions(body) },
        tags: [],
      },
    }),
  );
  return { contentId: str(arr(created.accountMediaBundles)[0]?.id), contentType: ATTACHMENT_BUNDLE };
}

/**
 * The attachments of a message carrying the body's media: none without media, else one offer (one
 * platform write). The caller sends its message after this, so a failure in between leaves at most an
 * orphan offer, never a message.
 */
export async function offerAttachments(
  body: MediaPermissions,
  creatorId: string,
  call: OperationContext['call'],
): Promise<OfferAttachment[]> {
  if ((body.mediaIds?.length ?? 0) === 0) return [];
  const offer = await createOffer(body, creatorId, call);
  if (offer.contentId === '')
    throw new GatewayError('UPSTREAM_ERROR', 'the platform answered the media offer without its id');
  return [{ messageId: null, pos: 0, ...offer }];
}

/**
 * The account media and bundles that attachments (`contentIds`, of posts or messages) offer, picked
 * from `aggregation`: a platform answer holding those lists, which may describe more than was kept
 * (a page's look-ahead item). A bundle's media are listed by their own ids, under its accountMediaIds.
 */
export function attachedMedia(
  aggregation: Raw,
  contentIds: Iterable<string>,
): { accountMedia: AccountMedia[]; accountMediaBundles: Raw[] } {
  const attached = new Set(contentIds);
  const accountMediaBundles = arr(aggregation.accountMediaBundles).filter((bundle) =>
    attached.has(str(bundle.id)),
  );
  for (const bundle of accountMediaBundles)
    for (const id of Array.isArray(bundle.accountMediaIds) ? bundle.accountMediaIds : [])
      attached.add(str(id));
  const accountMedia = arr(aggregation.accountMedia)
    .filter((media) => attached.has(str(media.id)))
    .map(AccountMedia.from);
  return { accountMedia, accountMediaBundles };
}
