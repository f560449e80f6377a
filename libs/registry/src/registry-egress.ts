/**
 * The block list of the registry client's egress guard, with single addresses let through: a
 * registry on loopback (local mode, tests) is reached only at the addresses named, while the rest of
 * each blocked range (other loopback addresses, metadata endpoints) stays blocked. Only the registry
 * client gets this list; apiCall and CEL http calls keep the controller's own.
 */
import { isIP } from 'node:net';

export class RegistryEgressError extends Error {
  override readonly name = 'RegistryEgressError';
}

interface Range {
  readonly family: 4 | 6;
  readonly network: bigint;
  readonly prefix: number;
}

/**
 * `blocked` with each of `allowed` (IP addresses) cut out of the ranges that hold it: a range is
 * replaced by the ranges covering everything else in it. Entries that are not CIDRs are kept as
 * they are, for the egress guard to report.
 */
export function blockedCidrsAllowing(blocked: readonly string[], allowed: readonly string[]): string[] {
  const addresses = allowed.map((entry, i) => {
    const text = typeof entry === 'string' ? entry.trim() : '';
    const family = isIP(text);
    if (family === 0) {
      throw new RegistryEgressError(`registry allowed address ${i} ${JSON.stringify(entry)} is not an IP address`);
    }
    return { family: family as 4 | 6, value: toBigInt(text, family as 4 | 6) };
  });
  let result: Array<Range | string> = blocked.map((entry) => parseRange(entry) ?? entry);
  for (const address of addresses) {
    result = result.flatMap((range) =>
      typeof range !== 'string' && range.family === address.family && contains(range, address.value)
        ? without(range, address.value)
        : [range],
    );
  }
  return result.map((range) => (typeof range === 'string' ? range : formatRange(range)));
}

function bits(family: 4 | 6): number {
  return family === 4 ? 32 : 128;
}

function contains(range: Range, value: bigint): boolean {
  const shift = BigInt(bits(range.family) - range.prefix);
  return value >> shift === range.network >> shift;
}

/** The sibling subnets along the path from the range down to the single address: all of the range but it. */
function without(range: Range, value: bigint): Range[] {
  const max = bits(range.family);
  const parts: Range[] = [];
  for (let prefix = range.prefix + 1; prefix <= max; prefix++) {
    const shift = BigInt(max - prefix);
    parts.push({ family: range.family, network: ((value >> shift) ^ 1n) << shift, prefix });
  }
  return parts;
}

function parseRange(entry: unknown): Range | undefined {
  if (typeof entry !== 'string') return undefined;
  const text = entry.trim();
  const slash = text.indexOf('/');
  const address = slash === -1 ? text : text.slice(0, slash);
  const family = isIP(address);
  if (family === 0) return undefined;
  const max = family === 4 ? 32 : 128;
  const prefixText = slash === -1 ? String(max) : text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > max) return undefined;
  const prefix = Number(prefixText);
  const shift = BigInt(max - prefix);
  return { family: family as 4 | 6, network: (toBigInt(address, family as 4 | 6) >> shift) << shift, prefix };
}

function toBigInt(address: string, family: 4 | 6): bigint {
  if (family === 4) return address.split('.').reduce((sum, part) => (sum << 8n) + BigInt(Number(part)), 0n);
  let text = address.split('%')[0];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = toBigInt(dotted[1], 4);
    text = `${text.slice(0, dotted.index)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail === undefined ? [] : tail ? tail.split(':') : [];
  const groups = [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return groups.reduce((sum, group) => (sum << 16n) + BigInt(Number.parseInt(group, 16)), 0n);
}

function formatRange(range: Range): string {
  if (range.family === 4) {
    const octets = [24n, 16n, 8n, 0n].map((shift) => String((range.network >> shift) & 0xffn));
    return `${octets.join('.')}/${range.prefix}`;
  }
  const groups: string[] = [];
  for (let i = 7; i >= 0; i--) groups.push(((range.network >> BigInt(i * 16)) & 0xffffn).toString(16));
  return `${groups.join(':')}/${range.prefix}`;
}
