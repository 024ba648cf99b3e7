/** What the caller asked for in `Prefer` (RFC 7240): `respond-async` and/or `wait=<seconds>`. */
export interface Preference {
  respondAsync: boolean;
  waitSeconds?: number;
}

export function parsePrefer(header: string | string[] | undefined): Preference {
  const preference: Preference = { respondAsync: false };
  const values = Array.isArray(header) ? header.join(',') : (header ?? '');
  for (const token of values.split(/[,;]/)) {
    // `name [ BWS "=" BWS value ]`, the value a token or a quoted string.
    const at = token.indexOf('=');
    const name = (at < 0 ? token : token.slice(0, at)).trim().toLowerCase();
    const value =
      at < 0
        ? undefined
        : token
            .slice(at + 1)
            .trim()
            .replace(/^"(.*)"$/, '$1');
    // respond-async takes no value: `respond-async=false` is not a request to answer asynchronously.
    if (name === 'respond-async' && (value === undefined || value === '')) preference.respondAsync = true;
    if (name === 'wait' && value !== undefined && /^\d+$/.test(value)) preference.waitSeconds = Number(value);
  }
  return preference;
}

/** How long to wait for the job: `wait=N` shortens the server's budget, never lengthens it. */
export function waitBudgetMs(preference: Preference, serverBudgetMs: number): number {
  if (preference.respondAsync) return 0;
  if (preference.waitSeconds === undefined) return serverBudgetMs;
  return Math.min(serverBudgetMs, preference.waitSeconds * 1000);
}
