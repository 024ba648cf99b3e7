import type { TestStack } from './stack';

/** The sandbox's control surface, as the tests use it. */
export async function injectFault(stack: TestStack, fault: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${stack.simUrl}/_sim/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fault),
  });
  if (!response.ok) throw new Error(`fault not accepted: ${await response.text()}`);
}

export async function clearFaults(stack: TestStack): Promise<void> {
  await fetch(`${stack.simUrl}/_sim/faults`, { method: 'DELETE' });
}

export interface AccountObservation {
  username: string;
  requests: Record<string, number>;
  maxInFlight: number;
  minMediaOfferGapMs: number | null;
  duplicates: { method: string; path: string; count: number }[];
  served429: number;
}

export async function observations(stack: TestStack, platformAccountId: string): Promise<AccountObservation> {
  const all = (await (await fetch(`${stack.simUrl}/_sim/observations`)).json()) as {
    accounts: Record<string, AccountObservation>;
  };
  // An account the platform has not heard from since the last reset has no entry yet.
  return (
    all.accounts[platformAccountId] ?? {
      username: '',
      requests: {},
      maxInFlight: 0,
      minMediaOfferGapMs: null,
      duplicates: [],
      served429: 0,
    }
  );
}

export async function resetObservations(stack: TestStack): Promise<void> {
  await fetch(`${stack.simUrl}/_sim/observations/reset`, { method: 'POST' });
}
