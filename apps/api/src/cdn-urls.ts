/** One entry of `MEDIA_CDN_URLS`: a URL prefix, `*` standing for letters, digits or dashes of a host. */
export interface CdnPrefix {
  protocol: string;
  host: RegExp;
  port: string;
  path: string;
}

/** `MEDIA_CDN_URLS`, read once at start: a malformed entry stops the process. */
export function parseCdnUrls(setting: string): CdnPrefix[] {
  return setting
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const match = /^(https?):\/\/([A-Za-z0-9.*-]+)(?::(\d{1,5}))?(\/[^?#]*)?$/.exec(entry);
      if (!match) throw new Error(`MEDIA_CDN_URLS: "${entry}" is not an http(s) URL prefix`);
      const [, protocol, host = '', port, path] = match;
      const pattern = host.toLowerCase().replace(/\./g, '\\.').replace(/\*/g, '[a-z0-9-]*');
      return {
        protocol: `${protocol}:`,
        host: new RegExp(`^${pattern}$`),
        port: port ?? '',
        path: path ?? '/',
      };
    });
}

/**
 * Whether a download may fetch `url`: one of the CDN prefixes, with no credentials in it. Anything
 * else is refused, so the gateway never fetches a URL its caller picked.
 */
export function allowedCdnUrl(url: string, prefixes: readonly CdnPrefix[]): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.username !== '' || parsed.password !== '') return false;
  return prefixes.some(
    (prefix) =>
      parsed.protocol === prefix.protocol &&
      prefix.host.test(parsed.hostname) &&
      parsed.port === prefix.port &&
      parsed.pathname.startsWith(prefix.path),
  );
}
