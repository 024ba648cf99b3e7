import { accountsByIds } from './accounts-by-ids/operation';
import { automatedMessagesCreate } from './automated-messages-create/operation';
import { automatedMessagesDelete } from './automated-messages-delete/operation';
import { automatedMessagesList } from './automated-messages-list/operation';
import { chatMediaStats } from './chat-media-stats/operation';
import { chatMessages } from './chat-messages/operation';
import { chatMessagesSend } from './chat-messages-send/operation';
import { chatsHide } from './chats-hide/operation';
import { chatsList } from './chats-list/operation';
import { chatsMute, chatsUnmute } from './chats-mute/operation';
import { chatsReadReceipts } from './chats-read-receipts/operation';
import { chatsTips } from './chats-tips/operation';
import { chatsTyping } from './chats-typing/operation';
import { chatsUnread } from './chats-unread/operation';
import { chatsVip } from './chats-vip/operation';
import { connect } from './connect/operation';
import type { OperationDef, OperationSchemas } from './define';
import { earnings } from './earnings/operation';
import { earningsFan } from './earnings-fan/operation';
import { earningsFanStats } from './earnings-fan-stats/operation';
import { earningsMonthly } from './earnings-monthly/operation';
import { earningsTransactions } from './earnings-transactions/operation';
import { follow, unfollow } from './follow/operation';
import { followers } from './followers/operation';
import { following } from './following/operation';
import { groupCreate } from './group-create/operation';
import { listsAddUser } from './lists-add-user/operation';
import { listsCreate } from './lists-create/operation';
import { listsRead } from './lists-read/operation';
import { massMessagesScheduled } from './mass-messages-scheduled/operation';
import { massMessagesSend } from './mass-messages-send/operation';
import { massMessagesStatsDeleted, massMessagesStatsSent } from './mass-messages-stats/operation';
import { massMessagesUpdate } from './mass-messages-update/operation';
import { me } from './me/operation';
import { mediaDownload } from './media-download/operation';
import { mediaUpload } from './media-upload/operation';
import { messagesDelete } from './messages-delete/operation';
import { messagesLike, messagesUnlike } from './messages-like/operation';
import { payoutDelete } from './payout-delete/operation';
import { postsCreate } from './posts-create/operation';
import { postsDelete } from './posts-delete/operation';
import { postsPin } from './posts-pin/operation';
import { postsRead } from './posts-read/operation';
import { postsScheduled } from './posts-scheduled/operation';
import { postsScheduledCancel } from './posts-scheduled-cancel/operation';
import { postsUpdate } from './posts-update/operation';
import { postsWall } from './posts-wall/operation';
import { postsWalls } from './posts-walls/operation';
import { profileByUsername } from './profile-by-username/operation';
import { profileStats } from './profile-stats/operation';
import { realtimeBackfill } from './realtime-backfill/operation';
import { subscribers } from './subscribers/operation';
import { topSupporters } from './top-supporters/operation';
import { trackingLinksCreate } from './tracking-links-create/operation';
import { trackingLinksUpdate } from './tracking-links-update/operation';
import { twofaSession, twofaSessionVerify } from './twofa-session/operation';
import { vaultAlbumDelete } from './vault-album-delete/operation';
import { vaultAlbumMedia } from './vault-album-media/operation';
import { vaultAlbums } from './vault-albums/operation';
import { verifyTwofa } from './verify-2fa/operation';

/**
 * Every gateway operation, one line each. The API builds its routes from this list and the worker
 * its handlers, so an operation cannot exist on one side only.
 */
export const operations = [
  connect,
  verifyTwofa,
  accountsByIds,
  profileByUsername,
  me,
  listsCreate,
  listsAddUser,
  listsRead,
  chatMediaStats,
  chatsUnread,
  messagesLike,
  messagesUnlike,
  chatsList,
  chatMessages,
  chatMessagesSend,
  messagesDelete,
  chatsHide,
  chatsMute,
  chatsUnmute,
  chatsVip,
  chatsReadReceipts,
  chatsTyping,
  chatsTips,
  groupCreate,
  payoutDelete,
  twofaSession,
  twofaSessionVerify,
  vaultAlbums,
  vaultAlbumDelete,
  vaultAlbumMedia,
  trackingLinksCreate,
  trackingLinksUpdate,
  massMessagesScheduled,
  massMessagesSend,
  massMessagesUpdate,
  massMessagesStatsSent,
  massMessagesStatsDeleted,
  automatedMessagesList,
  automatedMessagesCreate,
  automatedMessagesDelete,
  postsCreate,
  postsWalls,
  postsRead,
  postsWall,
  postsUpdate,
  postsDelete,
  postsPin,
  postsScheduled,
  postsScheduledCancel,
  profileStats,
  subscribers,
  following,
  followers,
  earningsTransactions,
  topSupporters,
  follow,
  unfollow,
  earnings,
  earningsFan,
  earningsFanStats,
  earningsMonthly,
] as const satisfies readonly OperationDef<
  // biome-ignore lint/suspicious/noExplicitAny: each entry keeps its own precise schemas
  any
>[];

export type OperationName = (typeof operations)[number]['name'];

/** The registry seen through the common operation type, for code that handles any operation. */
export const allOperations = operations as unknown as readonly OperationDef<OperationSchemas>[];

/**
 * Operations of the gateway's own processes, with no route: queued by them so their platform calls
 * run on the account's lane like every other (the listener's backfill).
 */
export const internalOperations = [
  realtimeBackfill,
  mediaUpload,
  mediaDownload,
] as unknown as readonly OperationDef<OperationSchemas>[];

const byName = new Map([...allOperations, ...internalOperations].map((op) => [op.name, op]));

export function findOperation(name: string): OperationDef<OperationSchemas> | undefined {
  return byName.get(name);
}

/**
 * Fails start-up on a duplicate name or route, like a registry should, and on a number in a query
 * string or path without a maximum: coerced text such as `1e400` or `Infinity` becomes Infinity,
 * which Ajv's `integer` lets through and only a maximum refuses.
 */
export function assertRegistry(ops: readonly OperationDef<OperationSchemas>[] = allOperations): void {
  const names = new Set<string>();
  const routes = new Set<string>();
  for (const op of ops) {
    const route = `${op.method} ${op.path}`;
    if (names.has(op.name)) throw new Error(`duplicate operation name ${op.name}`);
    if (routes.has(route)) throw new Error(`duplicate operation route ${route}`);
    names.add(op.name);
    routes.add(route);
    for (const part of [op.schemas.querystring, op.schemas.params]) {
      for (const [field, schema] of Object.entries(part?.properties ?? {})) {
        const { type, maximum } = schema as { type?: unknown; maximum?: unknown };
        if ((type === 'integer' || type === 'number') && typeof maximum !== 'number')
          throw new Error(
            `operation ${op.name}: the number ${field} needs a maximum (text can read as Infinity)`,
          );
      }
    }
  }
}
