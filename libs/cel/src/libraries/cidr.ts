import type { Environment } from '@marcbachmann/cel-js';
import { celError } from './errors';
import { CelIp, IP_TYPE, ipOrThrow } from './ip';
import {
  formatIpAddress,
  IpParseError,
  isIpv4MappedIpv6,
  maskIpAddress,
  parseIpPrefix,
  prefixContains,
  sameIpAddress,
  type IpPrefix,
} from './ip-address';
import { chargeString } from './runtime';

/** A network in CIDR notation (Kubernetes' CEL `net.CIDR`), its address kept as written. */
export class CelCidr {
  readonly celTypeName = CIDR_TYPE;
  constructor(readonly prefix: IpPrefix) {}

  equals(other: unknown): boolean {
    return (
      other instanceof CelCidr &&
      this.prefix.bits === other.prefix.bits &&
      sameIpAddress(this.prefix.address, other.prefix.address)
    );
  }
}

const CIDR_TYPE = 'net.CIDR';

/**
 * Kubernetes' CEL CIDR library: `cidr()`, `isCIDR()`, `containsIP` (an IP or a string),
 * `containsCIDR` (a CIDR or a string), `ip()`, `masked()`, `prefixLength()`, `string()` and equality.
 */
export function registerCidr(env: Environment): void {
  env.registerType(CIDR_TYPE, CelCidr);
  env.registerFunction(`cidr(string): ${CIDR_TYPE}`, (text: string) => new CelCidr(cidrOrThrow(text)));
  env.registerFunction('isCIDR(string): bool', (text: string) => cidrOrError(text) instanceof Error === false);
  env.registerFunction(`${CIDR_TYPE}.containsIP(string): bool`, (c: CelCidr, ip: string) =>
    prefixContains(c.prefix, ipOrThrow(ip)),
  );
  env.registerFunction(`${CIDR_TYPE}.containsIP(${IP_TYPE}): bool`, (c: CelCidr, ip: CelIp) =>
    prefixContains(c.prefix, ip.address),
  );
  env.registerFunction(`${CIDR_TYPE}.containsCIDR(string): bool`, (c: CelCidr, other: string) =>
    containsCidr(c.prefix, cidrOrThrow(other)),
  );
  env.registerFunction(`${CIDR_TYPE}.containsCIDR(${CIDR_TYPE}): bool`, (c: CelCidr, other: CelCidr) =>
    containsCidr(c.prefix, other.prefix),
  );
  env.registerFunction(`${CIDR_TYPE}.ip(): ${IP_TYPE}`, (c: CelCidr) => new CelIp(c.prefix.address));
  env.registerFunction(
    `${CIDR_TYPE}.masked(): ${CIDR_TYPE}`,
    (c: CelCidr) => new CelCidr({ address: maskIpAddress(c.prefix.address, c.prefix.bits), bits: c.prefix.bits }),
  );
  env.registerFunction(`${CIDR_TYPE}.prefixLength(): int`, (c: CelCidr) => BigInt(c.prefix.bits));
  env.registerFunction(
    `string(${CIDR_TYPE}): string`,
    (c: CelCidr) => `${formatIpAddress(c.prefix.address)}/${c.prefix.bits}`,
  );
  env.registerOperator(`${CIDR_TYPE} == ${CIDR_TYPE}`, (a: CelCidr, b: CelCidr) => a.equals(b));
}

/** The network contains every address of `other`: same family, no longer prefix, same masked bits. */
function containsCidr(prefix: IpPrefix, other: IpPrefix): boolean {
  return prefix.bits <= other.bits && prefixContains(prefix, other.address);
}

function cidrOrError(text: string): IpPrefix | Error {
  chargeString(text.length);
  let prefix: IpPrefix;
  try {
    prefix = parseIpPrefix(text);
  } catch (error) {
    if (!(error instanceof IpParseError)) throw error;
    return new Error(`network address parse error during conversion from string: ${error.message}`);
  }
  if (isIpv4MappedIpv6(prefix.address))
    return new Error(`IPv4-mapped IPv6 address ${JSON.stringify(text)} is not allowed`);
  return prefix;
}

function cidrOrThrow(text: string): IpPrefix {
  const prefix = cidrOrError(text);
  if (prefix instanceof Error) throw celError(prefix.message);
  return prefix;
}
