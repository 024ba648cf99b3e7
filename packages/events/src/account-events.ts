import type { EventName } from './catalog';
import { eventId } from './ids';
import type { PublishInput } from './log';

/** The gateway's own events of an account: `data` is the account as `GET /accounts` lists it. */
export type AccountEventName = Extract<EventName, `accounts.${string}`>;

/**
 * An `accounts.*` event. `occurrence` tells this one apart from the account's earlier ones of the
 * same kind (the connect job's id, the time of a disconnection), so each is one event, once.
 */
export function accountEvent(
  name: AccountEventName,
  account: { accountId: string },
  occurrence: string | number,
): PublishInput {
  return {
    id: eventId([account.accountId, name, occurrence]),
    event: name,
    accountId: account.accountId,
    data: account,
  };
}
