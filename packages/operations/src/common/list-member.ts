import { type Static, Type } from 'typebox';
import { coerce, jsonText } from './coerce';

/** List member as the add answer gives it (the contract: "without sortId"). */
export const ListMember = Type.Object({
  id: Type.String({ description: 'user id of the fan' }),
  listId: Type.String(),
  type: Type.Number({ description: 'type of the list' }),
  metadata: Type.String(),
});
export type ListMember = Static<typeof ListMember>;

/** List member as reading a list gives it: `sortId` orders the members and is the read cursor. */
export const ListMemberWithSortId = Type.Object({
  id: Type.String({ description: 'user id of the fan' }),
  sortId: Type.String(),
  listId: Type.String(),
  type: Type.Number({ description: 'type of the list' }),
  metadata: Type.String(),
});
export type ListMemberWithSortId = Static<typeof ListMemberWithSortId>;

export function toListMember(value: unknown): ListMember {
  const raw = coerce.obj(value);
  return {
    id: coerce.str(raw.id),
    listId: coerce.str(raw.listId),
    type: coerce.num(raw.type),
    // The platform sends JSON text ("{}"); an object would break the contract's string type.
    metadata: jsonText(raw.metadata),
  };
}

export function toListMemberWithSortId(value: unknown): ListMemberWithSortId {
  const { id, listId, type, metadata } = toListMember(value);
  return { id, sortId: coerce.str(coerce.obj(value).sortId), listId, type, metadata };
}
