import type { Environment } from '@marcbachmann/cel-js';
import { celError } from './errors';
import {
  formatIpAddress,
  IpParseError,
  isIpv4,
  isIpv4MappedIpv6,
  parseIpAddress,
  sameIpAddress,
  type IpAddress,
} from './ip-address';
import { chargeString } from './runtime';
import { namespaceFunction } from './namespace';

/** An IP address (Kubernetes' CEL `net.IP`). */
export class CelIp {
  readonly celTypeName = IP_TYPE;
  constructor(readonly address: IpAddress) {}

  equals(other: unknown): boolean {
    return other instanceof CelIp && sameIpAddress(this.address, other.address);
  }
}

export const IP_TYPE = 'net.IP';

/**
 * Kubernetes' CEL IP library: `ip()`, `isIP()`, `ip.isCanonical()`, `family()`, the address class
 * tests (isUnspecified, isLoopback, isLinkLocalMulticast, isLinkLocalUnicast, isGlobalUnicast),
 * `string()` and equality. Zones and IPv4-mapped IPv6 addresses are refused, as Kubernetes does.
 */
export function registerIp(env: Environment): void {
  env.registerType(IP_TYPE, CelIp);
  env.registerFunction(`ip(string): ${IP_TYPE}`, (text: string) => new CelIp(ipOrThrow(text)));
  env.registerFunction('isIP(string): bool', (text: string) => ipOrError(text) instanceof Error === false);
  namespaceFunction(env, 'ip.isCanonical(string): bool', (text: string) => {
    return formatIpAddress(ipOrThrow(text)) === text;
  });
  env.registerFunction(`${IP_TYPE}.family(): int`, (ip: CelIp) => (isIpv4(ip.address) ? 4n : 6n));
  env.registerFunction(`${IP_TYPE}.isUnspecified(): bool`, (ip: CelIp) => ip.address.bytes.every((b) => b === 0));
  env.registerFunction(`${IP_TYPE}.isLoopback(): bool`, (ip: CelIp) => isLoopback(ip.address));
  env.registerFunction(`${IP_TYPE}.isLinkLocalMulticast(): bool`, (ip: CelIp) => isLinkLocalMulticast(ip.address));
  env.registerFunction(`${IP_TYPE}.isLinkLocalUnicast(): bool`, (ip: CelIp) => isLinkLocalUnicast(ip.address));
  env.registerFunction(`${IP_TYPE}.isGlobalUnicast(): bool`, (ip: CelIp) => isGlobalUnicast(ip.address));
  env.registerFunction(`string(${IP_TYPE}): string`, (ip: CelIp) => formatIpAddress(ip.address));
  env.registerOperator(`${IP_TYPE} == ${IP_TYPE}`, (a: CelIp, b: CelIp) => a.equals(b));
}

/** Parses an address as Kubernetes' CEL does, or says why not. */
function ipOrError(text: string): IpAddress | Error {
  chargeString(text.length);
  let address: IpAddress;
  try {
    address = parseIpAddress(text);
  } catch (error) {
    if (!(error instanceof IpParseError)) throw error;
    return new Error(`IP Address ${JSON.stringify(text)} parse error during conversion from string: ${error.message}`);
  }
  if (address.zone) return new Error(`IP address ${JSON.stringify(text)} with zone value is not allowed`);
  if (isIpv4MappedIpv6(address)) return new Error(`IPv4-mapped IPv6 address ${JSON.stringify(text)} is not allowed`);
  return address;
}

export function ipOrThrow(text: string): IpAddress {
  const address = ipOrError(text);
  if (address instanceof Error) throw celError(address.message);
  return address;
}

function isLoopback({ bytes }: IpAddress): boolean {
  return bytes.length === 4 ? bytes[0] === 127 : bytes.slice(0, 15).every((b) => b === 0) && bytes[15] === 1;
}

function isMulticast({ bytes }: IpAddress): boolean {
  return bytes.length === 4 ? (bytes[0]! & 0xf0) === 0xe0 : bytes[0] === 0xff;
}

function isLinkLocalMulticast({ bytes }: IpAddress): boolean {
  return bytes.length === 4
    ? bytes[0] === 224 && bytes[1] === 0 && bytes[2] === 0
    : bytes[0] === 0xff && (bytes[1]! & 0x0f) === 0x02;
}

function isLinkLocalUnicast({ bytes }: IpAddress): boolean {
  return bytes.length === 4 ? bytes[0] === 169 && bytes[1] === 254 : bytes[0] === 0xfe && (bytes[1]! & 0xc0) === 0x80;
}

function isGlobalUnicast(ip: IpAddress): boolean {
  const { bytes } = ip;
  if (bytes.every((b) => b === 0)) return false;
  if (bytes.length === 4 && bytes.every((b) => b === 255)) return false;
  return !isLoopback(ip) && !isMulticast(ip) && !isLinkLocalUnicast(ip);
}
