/** A time as the browser's locale writes it. */
export const time = (iso: string): string => new Date(iso).toLocaleString();

/** Requests of a usage row: every answered request, whatever its status (a 429 is one of the 4xx). */
export const requestsOf = (row: { requests2xx: number; requests4xx: number; requests5xx: number }): number =>
  row.requests2xx + row.requests4xx + row.requests5xx;

/** The last `days` days up to now, as `from`/`to` for `GET /usage`, starting at a UTC midnight. */
export function lastDays(days: number): { from: string; to: string } {
  const start = new Date();
  start.setUTCHours(0, 0, 0, 0);
  start.setUTCDate(start.getUTCDate() - (days - 1));
  return { from: start.toISOString(), to: new Date(Date.now() + 60_000).toISOString() };
}
