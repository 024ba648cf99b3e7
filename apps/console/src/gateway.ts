import { createClient, GatewayApiError, type GatewayClient, type OperationAnswer } from '@cg/sdk';
import { createContext, useContext } from 'react';

/** The calling key's own record (`GET /keys/self`): what the pages offer follows it. */
export type KeyScope = OperationAnswer<'keysSelf'>['data'];

/** The gateway's client for the signed-in key, against the gateway that serves the console. */
export function gatewayClient(apiKey: string, platform: string): GatewayClient {
  return createClient({ baseUrl: window.location.origin, platform, apiKey, retry: { attempts: 1 } });
}

/** The API's path word (`/api/<platform>`), from the gateway serving the console. */
export async function loadPlatform(): Promise<string> {
  try {
    const answer = await fetch(`${import.meta.env.BASE_URL}config.json`);
    if (answer.ok) return ((await answer.json()) as { platform: string }).platform;
  } catch {
    // The dev server has no config.json: the default platform.
  }
  return 'fansly';
}

export interface Session {
  gw: GatewayClient;
  scope: KeyScope;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (session === null) throw new Error('useSession outside a signed-in page');
  return session;
}

/** What a key may do in the console, from its scope (the routes' `x-access`). */
export const can = {
  admin: (scope: KeyScope) => scope.access === 'admin',
  connect: (scope: KeyScope) => scope.access === 'admin' && scope.accounts === null,
  write: (scope: KeyScope) => scope.access !== 'read',
  /** Webhook endpoints are the tenant's: changed by an admin key of every account only. */
  webhooks: (scope: KeyScope) => scope.access === 'admin' && scope.accounts === null,
};

/** A failure as one line for the page: the gateway's message and code, or the network's. */
export function describeError(error: unknown): string {
  if (error instanceof GatewayApiError) return `${error.message} (${error.code})`;
  return error instanceof Error ? error.message : String(error);
}
