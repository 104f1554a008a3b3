// Which addresses are not the public internet: loopback, private, link-local, unique-local and
// unspecified ones. A web page or a model can point `webfetch` at them (a router's admin page,
// a cloud metadata service at 169.254.169.254, a dev server on localhost), so reaching one
// always needs the user's say-so. IPv4-mapped IPv6 (`::ffff:127.0.0.1`) counts as its IPv4.
import { BlockList, isIP } from 'node:net';

const RANGES: Array<{ kind: string; network: string; prefix: number; type: 'ipv4' | 'ipv6' }> = [
  { kind: 'loopback', network: '127.0.0.0', prefix: 8, type: 'ipv4' },
  { kind: 'unspecified', network: '0.0.0.0', prefix: 8, type: 'ipv4' },
  { kind: 'private', network: '10.0.0.0', prefix: 8, type: 'ipv4' },
  { kind: 'private', network: '172.16.0.0', prefix: 12, type: 'ipv4' },
  { kind: 'private', network: '192.168.0.0', prefix: 16, type: 'ipv4' },
  { kind: 'shared (carrier-grade NAT)', network: '100.64.0.0', prefix: 10, type: 'ipv4' },
  { kind: 'link-local', network: '169.254.0.0', prefix: 16, type: 'ipv4' },
  { kind: 'loopback', network: '::1', prefix: 128, type: 'ipv6' },
  { kind: 'unspecified', network: '::', prefix: 128, type: 'ipv6' },
  { kind: 'unique-local', network: 'fc00::', prefix: 7, type: 'ipv6' },
  { kind: 'link-local', network: 'fe80::', prefix: 10, type: 'ipv6' },
];

// Built on first use: every start loads this module, few fetch a page.
let lists: Array<{ kind: string; list: BlockList }> | undefined;
function rangeLists(): Array<{ kind: string; list: BlockList }> {
  lists ??= RANGES.map((range) => {
    const list = new BlockList();
    list.addSubnet(range.network, range.prefix, range.type);
    return { kind: range.kind, list };
  });
  return lists;
}

/** `loopback`, `private`, `link-local`…, or undefined for a public address (or no IP at all). */
export function nonPublicKind(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return undefined;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  return rangeLists().find(({ list }) => list.check(address, type))?.kind;
}
