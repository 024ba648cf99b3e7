import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/** Private, loopback, link-local, shared, reserved and multicast ranges: never a webhook's destination. */
const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  // Unspecified, loopback and the deprecated IPv4-compatible `::a.b.c.d`.
  ['::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const)
  blocked.addSubnet(net, bits, 'ipv6');

/** Whether an IP address is one a webhook must not reach (IPv4-mapped IPv6 judged as its IPv4). */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return blocked.check(mapped, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The host of a URL as the checks see it: no IPv6 brackets, lower case, one trailing dot removed
 * (`localhost.` is `localhost`). The URL parser has already written IPv4 in any form (`0x7f.1`,
 * `2130706433`, `127.1`) in dotted decimal, and IPv6 (IPv4-mapped included) in its short form.
 */
function normalHost(url: URL): string {
  return url.hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
}

/**
 * Why `raw` cannot be a webhook URL, judged by its text alone, or undefined. Without `allowPrivate`:
 * `https` only, and neither a private, loopback or link-local address nor a name that always is one
 * (`localhost`, `*.localhost`, `*.internal`). `allowPrivate` (the local stack) allows `http` and any
 * host.
 */
export function urlProblem(raw: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url is not an absolute URL';
  }
  if (url.username || url.password) return 'url must not carry credentials';
  if (allowPrivate)
    return url.protocol === 'https:' || url.protocol === 'http:' ? undefined : 'url must be https';
  if (url.protocol !== 'https:') return 'url must be https';
  const host = normalHost(url);
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal'))
    return 'url must not name a private, loopback or link-local host';
  if (isIP(host) !== 0 && isPrivateAddress(host))
    return 'url must not name a private, loopback or link-local address';
  return undefined;
}

/** How long the check of a URL being stored waits for its name's addresses. */
const STORE_LOOKUP_MS = 2_000;

export interface DestinationOptions {
  /** http and private destinations allowed (the local stack): nothing is resolved. */
  allowPrivate: boolean;
  /** Resolves host names (default `dns.lookup`; a test's stub). */
  lookup?: LookupFunction | undefined;
}

/**
 * Why `raw` cannot be stored as a webhook URL, or undefined: `urlProblem`, and without
 * `allowPrivate` its name resolved too (for at most `waitMs`), refused when any of its addresses is
 * private. A name that does not resolve, or not in time, is taken: a receiver's DNS may not be live
 * yet, and a resolver's passing failure must not refuse a good URL; every delivery resolves the name
 * again and refuses it then (`deliveryLookup`), so taking it opens nothing.
 */
export async function destinationProblem(
  raw: string,
  options: DestinationOptions,
  waitMs = STORE_LOOKUP_MS,
): Promise<string | undefined> {
  const problem = urlProblem(raw, options.allowPrivate);
  if (problem !== undefined || options.allowPrivate) return problem;
  const url = new URL(raw);
  if (isIP(normalHost(url)) !== 0) return undefined;
  const addresses = await addressesWithin(options.lookup ?? dnsLookup, url.hostname, waitMs);
  return anyPrivate(addresses)
    ? `url host ${url.hostname} resolves to a private, loopback or link-local address`
    : undefined;
}

/** Every address `lookup` answers for `hostname`; none when it fails or takes longer than `waitMs`. */
function addressesWithin(lookup: LookupFunction, hostname: string, waitMs: number): Promise<LookupAddress[]> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve([]), waitMs);
    lookup(hostname, { all: true }, (error, answer) => {
      clearTimeout(timer);
      resolve(error ? [] : addressList(answer));
    });
  });
}

/** Whether any of a name's addresses is one a webhook must not reach. */
const anyPrivate = (addresses: LookupAddress[]): boolean =>
  addresses.some((entry) => isPrivateAddress(entry.address));

/** A lookup's answer as a list, whether it gave every address or one. */
const addressList = (answer: string | LookupAddress[]): LookupAddress[] =>
  typeof answer === 'string' ? [{ address: answer, family: isIP(answer) }] : answer;

class DestinationError extends Error {
  override readonly name = 'DestinationError';
}

/**
 * The lookup of a delivery's socket: resolves the name once through `lookup`, every address, and
 * unless `allowPrivate` refuses it when any of them is private. node:net makes no lookup of its
 * own when given one and connects to what this answers, one address or (happy eyeballs,
 * `autoSelectFamily`, asking with `all: true`) each in turn, so a name cannot be re-pointed between
 * the check and the connection; Host and TLS SNI still carry the name.
 */
export function deliveryLookup(lookup: LookupFunction, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, answer) => {
      if (error) return callback(error, []);
      const addresses = addressList(answer);
      if (!allowPrivate && anyPrivate(addresses))
        return callback(
          new DestinationError(
            `destination refused: ${hostname} resolves to a private, loopback or link-local address`,
          ),
          [],
        );
      const first = addresses[0];
      if (!first) return callback(new DestinationError(`${hostname} has no address`), []);
      return options.all ? callback(null, addresses) : callback(null, first.address, first.family);
    });
  };
}
