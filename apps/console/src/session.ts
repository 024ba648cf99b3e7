import { useSyncExternalStore } from 'react';

// The API key the console signed in with: held in memory and in sessionStorage (so a reload of the
// tab keeps it, and closing the tab forgets it), never in localStorage or a cookie.

const STORAGE_KEY = 'cg-console-api-key';
let current: string | null = readStored();
const listeners = new Set<() => void>();

function readStored(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

function publish(key: string | null): void {
  current = key;
  try {
    if (key === null) sessionStorage.removeItem(STORAGE_KEY);
    else sessionStorage.setItem(STORAGE_KEY, key);
  } catch {
    // Storage refused (a private window's quota): the key stays in memory for this page only.
  }
  for (const listener of listeners) listener();
}

export const signIn = (key: string): void => publish(key);
export const signOut = (): void => publish(null);

/** The signed-in key, or null. */
export function useApiKey(): string | null {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => current,
  );
}
