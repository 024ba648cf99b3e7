import { GatewayError } from '@cg/contract';
import { isStreamId } from '@cg/events';
import { type TSchema, Type } from 'typebox';
import { Nullable } from '../schema';

/** The paging parameters of the event log's pages (events, delivery attempts). */
export const Cursor = Type.Optional(
  Type.String({ maxLength: 64, description: 'nextCursor of the previous page' }),
);
export const Limit = Type.Integer({ minimum: 1, maximum: 100, default: 50 });

/** 400 for a cursor the event log never answered. */
export function checkCursor(cursor: string | undefined): void {
  if (cursor !== undefined && !isStreamId(cursor))
    throw new GatewayError('BAD_REQUEST', 'cursor is not one this route answered');
}

/** A page of the event log: its items under `name`, and the cursor of the page after it. */
export const Page = (name: string, items: TSchema, nextCursor: string) =>
  Type.Object({ [name]: Type.Array(items), nextCursor: Nullable(Type.String(), nextCursor) });
