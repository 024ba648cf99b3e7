import { GatewayError } from '@cg/contract';
import { Type } from 'typebox';
import { Text } from './schemas';

/**
 * Cursors the gateway makes out of the platform's offset paging: `o<offset>`, opaque to callers.
 * (Where the contract fixes a cursor's meaning, e.g. unread chats' messageId, the operation uses
 * that value itself.) A malformed cursor is the caller's error: 400 naming the parameter.
 */
export const offsetCursor = {
  encode: (offset: number): string => `o${offset}`,
  decode: (cursor: string | undefined): number => {
    if (cursor === undefined || cursor === '') return 0;
    const match = /^o(\d{1,9})$/.exec(cursor);
    if (!match)
      throw new GatewayError(
        'BAD_REQUEST',
        'The cursor query parameter is not a cursor this endpoint returned',
      );
    return Number(match[1]);
  },
  /** Checks a cursor before enqueueing; returns the reason for a 400, if any. */
  check: (cursor: string | undefined): string | undefined =>
    cursor === undefined || cursor === '' || /^o\d{1,9}$/.test(cursor)
      ? undefined
      : 'The cursor query parameter is not a cursor this endpoint returned',
};

/** The `cursor` query parameter of an offset-paged listing. */
export const OffsetCursorQuery = Type.Optional(Text('nextCursor of the previous page', { maxLength: 64 }));

/** `nextCursor` in the answer of an offset-paged listing. */
export const NextOffsetCursor = Type.String({
  description: 'pass back as cursor; "" when there are no more',
});
