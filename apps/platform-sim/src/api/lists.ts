import { invalidField, notFound } from '../errors';
import {
  bodyObject,
  bodyString,
  queryCursorId,
  queryLimit,
  requiredBodyString,
  requiredQueryString,
} from '../params';
import type { ListMember } from '../records';
import { LIST_ITEM_TYPE_ACCOUNT, type ListEntry } from '../world/state';
import type { ApiContext, ApiRoute } from './types';

const MAX_ITEMS_PER_ADD = 100;

function listEntry(ctx: ApiContext, listId: string): ListEntry {
  const entry = ctx.core.world.state(ctx.creator).lists.get(listId);
  if (!entry) throw notFound('list');
  return entry;
}

function allLists(ctx: ApiContext): unknown {
  return [...ctx.core.world.state(ctx.creator).lists.values()].map((entry) => entry.list);
}

function createList(ctx: ApiContext): unknown {
  const body = bodyObject(ctx.body);
  const label = requiredBodyString(body, 'label', 100).trim();
  const description = bodyString(body, 'description', { maxLength: 500, allowEmpty: true }) ?? '';
  return ctx.core.world.state(ctx.creator).createList(label, description);
}

/** Adds accounts to lists; all items are checked before any is added, so a 404 changes nothing. */
function addItems(ctx: ApiContext): unknown {
  const body = bodyObject(ctx.body);
  const items = body.listItems;
  if (!Array.isArray(items) || items.length === 0 || items.length > MAX_ITEMS_PER_ADD)
    throw invalidField('listItems');
  const world = ctx.core.world;
  const planned: { entry: ListEntry; accountId: string }[] = [];
  for (const raw of items) {
    const item = bodyObject(raw);
    const accountId = requiredBodyString(item, 'id', 64);
    const listId = requiredBodyString(item, 'listId', 64);
    if (item.type !== LIST_ITEM_TYPE_ACCOUNT) throw invalidField('type');
    planned.push({ entry: listEntry(ctx, listId), accountId });
  }
  for (const { accountId } of planned) {
    if (!world.resolveAccount(accountId)) throw notFound('account');
  }
  const state = world.state(ctx.creator);
  return planned.map(({ entry, accountId }) => {
    const member = state.addListItem(entry, accountId);
    return { id: member.id, listId: member.listId, type: member.type, metadata: member.metadata };
  });
}

/** Members ordered by sortId ascending; `after` is the last sortId already read (exclusive). */
function readItems(ctx: ApiContext): ListMember[] {
  const listId = requiredQueryString(ctx.query, 'listId');
  const limit = queryLimit(ctx.query);
  const after = queryCursorId(ctx.query, 'after');
  return ctx.core.world.state(ctx.creator).listItems(listEntry(ctx, listId), after, limit);
}

export const listRoutes: ApiRoute[] = [
  {
    method: 'GET',
    path: '/lists',
    summary: '_extra._ Every list of the creator.',
    auth: 'session',
    handler: allLists,
  },
  {
    method: 'POST',
    path: '/lists',
    summary: '`{label (1-100 chars), description? (≤ 500)}` → the new list (`type` 1).',
    auth: 'session',
    write: true,
    handler: createList,
  },
  {
    method: 'POST',
    path: '/lists/items/add',
    summary:
      '`{listItems: [{id: <account id>, listId, type: 1}, ...]}`, 1 to 100 items → the items, without `sortId`. Everything is checked before anything is added (404 `list not found`, `account not found`); a member already in the list returns its item.',
    auth: 'session',
    write: true,
    handler: addItems,
  },
  {
    method: 'GET',
    path: '/lists/itemsnew',
    summary:
      'Members by `sortId` ascending (new members last); `after` = the last `sortId` read. `listId` required; `sortMode` ignored. The first seeded list of each creator pages.',
    auth: 'session',
    handler: readItems,
  },
];
