/**
 * Which addresses outbound calls may reach: a block list of CIDR ranges checked with node:net's
 * BlockList (which also matches IPv4-mapped IPv6 forms such as ::ffff:169.254.169.254 against IPv4
 * ranges, and the other way round).
 */
import { BlockList, isIP } from 'node:net';

/**
 * Refused unless configured otherwise: loopback (the controller's own node), link-local and the
 * cloud metadata endpoints (AWS IMDS over IPv4 and IPv6, Alibaba), and the unspecified addresses,
 * which Linux connects to the local host.
 */
export const DEFAULT_BLOCKED_CIDRS: readonly string[] = Object.freeze([
  '127.0.0.0/8',
  '::1/128',
  '169.254.0.0/16',
  'fe80::/10',
  'fd00:ec2::254/128',
  '100.100.100.200/32',
  '0.0.0.0/8',
  '::/128',
]);

/** NAT64's well-known prefix (64:ff9b::/96) routes to the IPv4 address in its last 32 bits. */
const NAT64 = new BlockList();
NAT64.addSubnet('64:ff9b::', 96, 'ipv6');

export class EgressConfigError extends Error {
  override readonly name = 'EgressConfigError';
}

interface BlockedRange {
  readonly cidr: string;
  readonly list: BlockList;
}

export class AddressPolicy {
  private readonly ranges: readonly BlockedRange[];

  /** Throws EgressConfigError naming every bad entry. */
  constructor(blockedCidrs: readonly string[] = DEFAULT_BLOCKED_CIDRS) {
    if (!Array.isArray(blockedCidrs)) throw new EgressConfigError('egress block list: expected a list of CIDRs');
    const problems: string[] = [];
    const ranges: BlockedRange[] = [];
    blockedCidrs.forEach((entry, index) => {
      const parsed = parseCidr(entry);
      if (typeof parsed === 'string') problems.push(`entry ${index} ${JSON.stringify(entry)}: ${parsed}`);
      else ranges.push(parsed);
    });
    if (problems.length > 0) throw new EgressConfigError(`invalid egress block list: ${problems.join('; ')}`);
    this.ranges = ranges;
  }

  /** The configured ranges, normalised (`a.b.c.d/n`, `x::/n`). */
  get blockedCidrs(): readonly string[] {
    return this.ranges.map((range) => range.cidr);
  }

  /**
   * The blocked range an IP address falls in, or undefined when it may be reached. A string that
   * is not an IP address is reported as blocked (`not an IP address`), so a caller mistake fails closed.
   */
  blockedRange(address: string): string | undefined {
    const ip = withoutZone(address);
    const family = isIP(ip);
    if (family === 0) return 'not an IP address';
    const type = family === 4 ? 'ipv4' : 'ipv6';
    for (const range of this.ranges) {
      if (range.list.check(ip, type)) return range.cidr;
    }
    const embedded = family === 6 ? nat64Embedded(ip) : undefined;
    return embedded === undefined ? undefined : this.blockedRange(embedded);
  }
}

/** `a.b.c.d/n`, `x:y::/n`, or a bare address (a single host). Returns the problem as a string. */
function parseCidr(entry: unknown): BlockedRange | string {
  if (typeof entry !== 'string') return 'expected a string';
  const text = entry.trim();
  const slash = text.indexOf('/');
  const address = slash === -1 ? text : text.slice(0, slash);
  const family = isIP(address);
  if (family === 0) return 'not an IPv4 or IPv6 address';
  const max = family === 4 ? 32 : 128;
  const prefixText = slash === -1 ? String(max) : text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText)) return 'the prefix length must be a number';
  const prefix = Number(prefixText);
  if (prefix > max) return `the prefix length must be 0-${max} for IPv${family}`;
  const list = new BlockList();
  list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
  return { cidr: `${address.toLowerCase()}/${prefix}`, list };
}

function withoutZone(address: string): string {
  const percent = address.indexOf('%');
  return percent === -1 ? address : address.slice(0, percent);
}

/** The IPv4 address inside a 64:ff9b::/96 address, if it is one. */
function nat64Embedded(ip: string): string | undefined {
  if (!NAT64.check(ip, 'ipv6')) return undefined;
  const groups = expandIpv6(ip);
  const high = groups[6];
  const low = groups[7];
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part counts as two). */
function expandIpv6(ip: string): number[] {
  let text = ip;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail === undefined ? [] : tail ? tail.split(':') : [];
  const fill = 8 - headGroups.length - tailGroups.length;
  return [...headGroups, ...Array<string>(Math.max(fill, 0)).fill('0'), ...tailGroups].map((group) =>
    Number.parseInt(group, 16),
  );
}
