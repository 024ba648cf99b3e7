import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from './env';

/** One egress proxy of the configuration. `url` may hold credentials: it is never logged or stored. */
export interface EgressProxy {
  /** Stable across password changes: a hash of the scheme, user name, host and port. */
  readonly id: string;
  readonly country: string;
  readonly url: string;
  /** `host:port`, what callers and logs are shown. */
  readonly label: string;
}

/** Where accounts leave from: the configured proxies, or `null` for direct (no proxies configured). */
export interface EgressPlan {
  readonly byId: ReadonlyMap<string, EgressProxy>;
  readonly byCountry: ReadonlyMap<string, readonly EgressProxy[]>;
  /** `direct`: an account whose country's proxies are all down goes direct instead of waiting. */
  readonly fallback: 'none' | 'direct';
  /** Proxy-layer failures within `failureWindowMs` that mark a proxy down for `cooldownMs`. */
  readonly failures: number;
  readonly failureWindowMs: number;
  readonly cooldownMs: number;
}

export interface EgressSettings {
  EGRESS_PROXIES?: string | undefined;
  EGRESS_PROXIES_FILE?: string | undefined;
  EGRESS_FALLBACK: 'none' | 'direct';
  EGRESS_FAILURES: number;
  EGRESS_FAILURE_WINDOW_MS: number;
  EGRESS_COOLDOWN_MS: number;
}

const COUNTRY = /^[A-Z]{2}$/;
const SCHEMES = new Set(['http:']);

/**
 * The egress plan of the settings, or null when no proxies are configured (calls go direct). Reads
 * `EGRESS_PROXIES_FILE` once; a malformed value is a ConfigError naming the variable and the problem.
 */
export function loadEgressPlan(settings: EgressSettings): EgressPlan | null {
  const { EGRESS_PROXIES: inline, EGRESS_PROXIES_FILE: file } = settings;
  if (inline !== undefined && file !== undefined)
    throw new ConfigError('set EGRESS_PROXIES or EGRESS_PROXIES_FILE, not both');
  let variable = 'EGRESS_PROXIES';
  let text = inline;
  if (file !== undefined) {
    variable = 'EGRESS_PROXIES_FILE';
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new ConfigError(
        `invalid environment variable ${variable}: cannot read ${file} (${codeOf(error)})`,
      );
    }
  }
  if (text === undefined) return null;
  const byCountry = parseProxies(
    text,
    (problem) => new ConfigError(`invalid environment variable ${variable}: ${problem}`),
  );
  const byId = new Map<string, EgressProxy>();
  for (const proxies of byCountry.values()) for (const proxy of proxies) byId.set(proxy.id, proxy);
  return {
    byId,
    byCountry,
    fallback: settings.EGRESS_FALLBACK,
    failures: settings.EGRESS_FAILURES,
    failureWindowMs: settings.EGRESS_FAILURE_WINDOW_MS,
    cooldownMs: settings.EGRESS_COOLDOWN_MS,
  };
}

/** `{"US": ["http://user:pass@host:3128", ...], ...}`: each proxy in one country, listed once. */
function parseProxies(text: string, invalid: (problem: string) => Error): Map<string, EgressProxy[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid('not JSON: expected {"US": ["http://host:port", ...], ...}');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw invalid('expected an object from country code to a list of proxy URLs');
  const byCountry = new Map<string, EgressProxy[]>();
  const seen = new Map<string, string>();
  for (const [country, urls] of Object.entries(parsed)) {
    if (!COUNTRY.test(country)) throw invalid(`"${country}" is not a two-letter uppercase country code`);
    if (!Array.isArray(urls) || urls.length === 0)
      throw invalid(`${country} must be a non-empty list of proxy URLs`);
    const proxies = urls.map((url, n) => parseProxy(country, url, `${country}[${n}]`, invalid));
    for (const proxy of proxies) {
      const other = seen.get(proxy.id);
      if (other !== undefined)
        throw invalid(`proxy ${proxy.label} is listed twice (${other} and ${country})`);
      seen.set(proxy.id, country);
    }
    byCountry.set(country, proxies);
  }
  if (byCountry.size === 0) throw invalid('no country has proxies (unset it to go direct)');
  return byCountry;
}

function parseProxy(
  country: string,
  value: unknown,
  where: string,
  invalid: (problem: string) => Error,
): EgressProxy {
  if (typeof value !== 'string') throw invalid(`${where} is not a string`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // The value may hold a password: it is not repeated.
    throw invalid(`${where} is not a URL`);
  }
  if (!SCHEMES.has(url.protocol))
    throw invalid(`${where}: ${url.protocol} proxies are not supported (http: is)`);
  if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '')
    throw invalid(`${where}: a proxy URL has no path, query or fragment`);
  if (url.password !== '' && url.username === '') throw invalid(`${where}: a password without a user name`);
  const port = url.port === '' ? '80' : url.port;
  const label = `${url.hostname}:${port}`;
  const identity = `${url.protocol}//${url.username}@${label}`;
  const id = `px-${createHash('sha256').update(identity).digest('hex').slice(0, 16)}`;
  return { id, country, url: url.href, label };
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? 'unreadable';
}
