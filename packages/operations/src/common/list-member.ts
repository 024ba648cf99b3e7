import { f, type RecordValue, record } from './record';

/** List member as the add answer gives it (the contract: "without sortId"). */
export const ListMember = record({
  id: f.id('user id of the fan'),
  listId: f.id(),
  type: f.number('type of the list'),
  // The platform sends JSON text ("{}"); an object would break the contract's string type.
  metadata: f.jsonText(),
});
export type ListMember = RecordValue<typeof ListMember>;

/** List member as reading a list gives it: `sortId` orders the members and is the read cursor. */
const { id, ...memberFields } = ListMember.fields;
export const ListMemberWithSortId = record({ id, sortId: f.string(), ...memberFields });
export type ListMemberWithSortId = RecordValue<typeof ListMemberWithSortId>;
