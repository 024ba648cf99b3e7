/** What the caller asked for in `Prefer` (RFC 7240): `respond-async` and/or `wait=<seconds>`. */
export interface Preference {
  respondAsync: boolean;
  waitSeconds?: number;
}

export function parsePrefer(header: string | string[] | undefined): Preference {
  const preference: Preference = { respondAsync: false };
  const values = Array.isArray(header) ? header.join(',') : (header ?? '');
  for (const token of values.split(/[,;]/)) {
    const [name, value] = token.trim().toLowerCase().split('=');
    if (name === 'respond-async') preference.respondAsync = true;
    if (name === 'wait' && value !== undefined && /^\d+$/.test(value.trim()))
      preference.waitSeconds = Number(value.trim());
  }
  return preference;
}

/** How long to wait for the job: `wait=N` shortens the server's budget, never lengthens it. */
export function waitBudgetMs(preference: Preference, serverBudgetMs: number): number {
  if (preference.respondAsync) return 0;
  if (preference.waitSeconds === undefined) return serverBudgetMs;
  return Math.min(serverBudgetMs, preference.waitSeconds * 1000);
}
