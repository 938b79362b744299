/**
 * Which addresses the authorization server may connect to on a client's say-so (a Client ID
 * Metadata Document, a client's jwks_uri): global unicast only. Refused: every entry of IANA's
 * IPv4 and IPv6 Special-Purpose Address Registries (loopback, private, link-local, CGNAT,
 * documentation, benchmarking, reserved, "this network", ...), multicast and broadcast, and on
 * IPv6 everything outside 2000::/3 (unique-local, site-local, link-local, multicast, IPv4-
 * compatible, discard), plus the forms that embed an IPv4 address: 6to4 and Teredo are refused
 * whole, IPv4-mapped and NAT64 (64:ff9b::/96) addresses are judged by the IPv4 address they carry.
 */
import { BlockList, isIP } from 'node:net';

/** IANA IPv4 Special-Purpose Address Registry, with multicast (224/4) and the rest of 240/4 (reserved, broadcast). */
const SPECIAL_IPV4: readonly [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.31.196.0', 24],
  ['192.52.193.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['192.175.48.0', 24],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

/** The IANA IPv6 registry's entries inside 2000::/3 (the rest of the registry lies outside it). */
const SPECIAL_IPV6_IN_GLOBAL: readonly [string, number][] = [
  // IETF protocol assignments: Teredo, benchmarking, AMT, AS112, ORCHID, drone IDs.
  ['2001::', 23],
  ['2001:db8::', 32],
  // 6to4: carries any IPv4 address, private ones included.
  ['2002::', 16],
  ['2620:4f:8000::', 48],
  ['3fff::', 20],
];

const special4 = new BlockList();
for (const [network, prefix] of SPECIAL_IPV4) special4.addSubnet(network, prefix, 'ipv4');
const global6 = new BlockList();
global6.addSubnet('2000::', 3, 'ipv6');
const special6 = new BlockList();
for (const [network, prefix] of SPECIAL_IPV6_IN_GLOBAL) special6.addSubnet(network, prefix, 'ipv6');

/** The eight 16-bit groups of an IPv6 address in the WHATWG URL's canonical form (hex, at most one "::"). */
function groupsOf(canonical: string): number[] {
  const [head = '', tail] = canonical.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((group) => Number.parseInt(group, 16));
}

/** The IPv4 address an IPv4-mapped (::ffff:0:0/96) or NAT64 (64:ff9b::/96) address carries. */
function embeddedIPv4(address: string): string | undefined {
  let canonical: string;
  try {
    canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  const groups = groupsOf(canonical);
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0);
  if (!mapped && !nat64) return undefined;
  const [high = 0, low = 0] = groups.slice(6);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** True when a connection to `address` could reach anything but the public internet; anything not an IP address counts as such. */
export function isSpecialUseAddress(address: string): boolean {
  // A zone index (fe80::1%eth0) names a local link.
  if (address.includes('%')) return true;
  const family = isIP(address);
  if (family === 4) return special4.check(address, 'ipv4');
  if (family !== 6) return true;
  const carried = embeddedIPv4(address);
  if (carried !== undefined) return special4.check(carried, 'ipv4');
  return !global6.check(address, 'ipv6') || special6.check(address, 'ipv6');
}
