/**
 * IP addresses and prefixes as Go's net/netip parses and prints them (what Kubernetes' CEL ip and
 * cidr libraries use): strict dotted quads (no leading zeros), IPv6 with `::` and an optional
 * trailing dotted quad, canonical RFC 5952 text.
 */
export interface IpAddress {
  /** 4 bytes for IPv4, 16 for IPv6. */
  readonly bytes: Uint8Array;
  readonly zone: string;
}

export class IpParseError extends Error {}

export function parseIpAddress(text: string): IpAddress {
  const fail = (why: string): never => {
    throw new IpParseError(`ParseAddr(${JSON.stringify(text)}): ${why}`);
  };
  if (text === '') fail('unable to parse IP');
  if (text.includes(':')) return parseIpv6(text, fail);
  if (text.includes('.')) return { bytes: parseIpv4(text, fail), zone: '' };
  return fail('unable to parse IP');
}

function parseIpv4(text: string, fail: (why: string) => never): Uint8Array {
  const fields = text.split('.');
  if (fields.length !== 4) fail(fields.length < 4 ? 'IPv4 address too short' : 'IPv4 address too long');
  const bytes = new Uint8Array(4);
  fields.forEach((field, i) => {
    if (field === '') fail('IPv4 field must have at least one digit');
    if (!/^[0-9]+$/.test(field)) fail(`unexpected character`);
    if (field.length > 1 && field.startsWith('0')) fail('IPv4 field has octet with leading zero');
    const value = Number(field);
    if (field.length > 3 || value > 255) fail('IPv4 field has value >255');
    bytes[i] = value;
  });
  return bytes;
}

function parseIpv6(text: string, fail: (why: string) => never): IpAddress {
  let address = text;
  let zone = '';
  const percent = text.indexOf('%');
  if (percent >= 0) {
    zone = text.slice(percent + 1);
    address = text.slice(0, percent);
    if (zone === '') fail('zone must be a non-empty string');
  }
  const halves = address.split('::');
  if (halves.length > 2) fail('multiple :: in address');
  const groupsOf = (part: string, last: boolean): number[] => {
    if (part === '') return [];
    const groups: number[] = [];
    const fields = part.split(':');
    fields.forEach((field, i) => {
      if (last && i === fields.length - 1 && field.includes('.')) {
        const v4 = parseIpv4(field, fail);
        groups.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
        return;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(field))
        fail(field.length > 4 ? 'each colon-separated field must have at most 4 hex digits' : 'unexpected character');
      groups.push(parseInt(field, 16));
    });
    return groups;
  };
  const head = groupsOf(halves[0]!, halves.length === 1);
  const tail = halves.length === 2 ? groupsOf(halves[1]!, true) : [];
  const groups =
    halves.length === 2
      ? head.length + tail.length >= 8
        ? fail('the :: must expand to at least one field of zeros')
        : [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail]
      : head;
  if (groups.length !== 8) fail(groups.length < 8 ? 'address string too short' : 'trailing garbage after address');
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    bytes[2 * i] = group >> 8;
    bytes[2 * i + 1] = group & 0xff;
  });
  return { bytes, zone };
}

export function isIpv4(ip: IpAddress): boolean {
  return ip.bytes.length === 4;
}

/** An IPv4 address written in IPv6 form (::ffff:a.b.c.d). */
export function isIpv4MappedIpv6(ip: IpAddress): boolean {
  return (
    ip.bytes.length === 16 &&
    ip.bytes.slice(0, 10).every((b) => b === 0) &&
    ip.bytes[10] === 0xff &&
    ip.bytes[11] === 0xff
  );
}

/** Go's netip.Addr.String(). */
export function formatIpAddress(ip: IpAddress): string {
  const b = ip.bytes;
  if (b.length === 4) return Array.from(b).join('.');
  const zone = ip.zone ? `%${ip.zone}` : '';
  if (isIpv4MappedIpv6(ip)) return `::ffff:${Array.from(b.slice(12)).join('.')}${zone}`;
  const groups = Array.from({ length: 8 }, (_, i) => (b[2 * i]! << 8) | b[2 * i + 1]!);
  // The first longest run of two or more zero groups becomes '::'.
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart < 0) return hex.join(':') + zone;
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}${zone}`;
}

export function sameIpAddress(a: IpAddress, b: IpAddress): boolean {
  return a.bytes.length === b.bytes.length && a.bytes.every((byte, i) => byte === b.bytes[i]) && a.zone === b.zone;
}

/** The address with every bit after the first `bits` cleared. */
export function maskIpAddress(ip: IpAddress, bits: number): IpAddress {
  const bytes = ip.bytes.map((byte, i) => {
    const keep = Math.max(0, Math.min(8, bits - 8 * i));
    return byte & ((0xff << (8 - keep)) & 0xff);
  });
  return { bytes, zone: '' };
}

export interface IpPrefix {
  readonly address: IpAddress;
  readonly bits: number;
}

/** Go's netip.ParsePrefix. */
export function parseIpPrefix(text: string): IpPrefix {
  const fail = (why: string): never => {
    throw new IpParseError(`netip.ParsePrefix(${JSON.stringify(text)}): ${why}`);
  };
  const slash = text.lastIndexOf('/');
  if (slash < 0) fail("no '/'");
  const address = parseIpAddress(text.slice(0, slash));
  if (address.zone) fail('IPv6 zones cannot be present in a prefix');
  const bitsText = text.slice(slash + 1);
  if (!/^[0-9]+$/.test(bitsText) || (bitsText.length > 1 && bitsText.startsWith('0'))) {
    fail(`bad bits after slash: ${JSON.stringify(bitsText)}`);
  }
  const bits = Number(bitsText);
  if (bits > address.bytes.length * 8) fail(`prefix length out of range`);
  return { address, bits };
}

export function prefixContains(prefix: IpPrefix, ip: IpAddress): boolean {
  if (ip.zone || prefix.address.bytes.length !== ip.bytes.length) return false;
  return sameIpAddress(maskIpAddress(prefix.address, prefix.bits), maskIpAddress(ip, prefix.bits));
}
