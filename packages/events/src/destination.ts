import { type LookupAddress, lookup } from 'node:dns';
import { BlockList, isIP } from 'node:net';

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
  ['::', 128],
  ['::1', 128],
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

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/**
 * Why `raw` cannot be a webhook URL, or undefined. Without `allowPrivate`: `https` only, and neither
 * a private, loopback or link-local address nor a name that always is one (`localhost`); a name is
 * checked again after DNS at each delivery (`safeLookup`). `allowPrivate` (the local stack) allows
 * `http` and any host.
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
  const host = hostOf(url).toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal'))
    return 'url must not name a private, loopback or link-local host';
  if (isIP(host) !== 0 && isPrivateAddress(host))
    return 'url must not name a private, loopback or link-local address';
  return undefined;
}

export class DestinationError extends Error {
  override readonly name = 'DestinationError';
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * `dns.lookup` for the delivery's socket: resolves the name, then refuses it when any address it
 * resolves to is private. The socket connects to what was checked, so a name cannot be re-pointed
 * between the check and the connection.
 */
export function safeLookup(hostname: string, options: object, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const bad = addresses.find((entry) => isPrivateAddress(entry.address));
    if (bad) return callback(new DestinationError(`${hostname} resolves to a private address`), []);
    if ((options as { all?: boolean }).all) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(new DestinationError(`${hostname} has no address`), []);
    return callback(null, first.address, first.family);
  });
}

/** The literal host of a URL, when it is an IP address: it is connected to without a lookup. */
export function literalAddress(url: URL): string | undefined {
  const host = hostOf(url);
  return isIP(host) === 0 ? undefined : host;
}
