import { isIP } from 'node:net';
import { decodeX509, type JsonValue, joinPath, randomFromPattern } from '@edict/foundation';
import { functionError, JmesPathError } from '../errors';
import type { FunctionDefinition } from '../runtime';
import { normalizeImage } from './image';
import { semverSatisfies } from './semver';
import { str } from './signatures';

function rethrow<T>(run: () => T, wrap: (message: string) => JmesPathError = (m) => new JmesPathError(m)): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof JmesPathError) throw error;
    throw wrap((error as Error).message);
  }
}

function isPrivateOrLoopback(ip: string): boolean {
  if (isIP(ip) === 4) {
    const [a = 0, b = 0] = ip.split('.').map(Number);
    return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
  }
  const lower = ip.toLowerCase();
  if (lower === '::1') return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return isPrivateOrLoopback(mapped[1]!);
  return /^f[cd]/.test(lower); // fc00::/7
}

/**
 * is_external_url (an older Kyverno function): false for loopback/private IP hosts. Kyverno
 * resolved host names through DNS; the engine does no network I/O, so only "localhost" is treated
 * as internal and any other name counts as external.
 */
function isExternalUrl(args: JsonValue[]): JsonValue {
  const text = args[0] as string;
  const match = /^(?:[a-zA-Z][a-zA-Z0-9+.-]*:)?\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)/.exec(text);
  const host = (match?.[1] ?? '').replace(/^\[|\]$/g, '');
  if (host === '') throw new JmesPathError('lookup : no such host');
  if (isIP(host)) return !isPrivateOrLoopback(host);
  return host.toLowerCase() !== 'localhost';
}

export const miscFunctions: FunctionDefinition[] = [
  {
    name: 'path_canonicalize',
    returns: ['string'],
    note: 'normalizes or canonicalizes a given path by removing excess slashes',
    signature: [str],
    fn: (a) => joinPath(a[0] as string),
  },
  {
    name: 'semver_compare',
    returns: ['bool'],
    note: 'compares two strings which comply with the semantic versioning schema and outputs a boolean response as to the position of the second relative to the first',
    signature: [str, str],
    fn: (a) => rethrow(() => semverSatisfies(a[0] as string, a[1] as string)),
  },
  {
    name: 'random',
    returns: ['string'],
    note: 'Generates a random sequence of characters',
    signature: [str],
    fn: (a) => rethrow(() => randomFromPattern(a[0] as string)),
  },
  {
    name: 'x509_decode',
    returns: ['object'],
    note: 'decodes an x.509 certificate to an object. you may also use this in conjunction with `base64_decode` jmespath function to decode a base64-encoded certificate',
    signature: [str],
    fn: (a) => rethrow(() => decodeX509(a[0] as string)),
  },
  {
    name: 'image_normalize',
    returns: ['string'],
    note: 'normalizes an image reference',
    signature: [str],
    fn: (a) =>
      rethrow(
        () => normalizeImage(a[0] as string),
        (m) => functionError('image_normalize', m),
      ),
  },
  {
    name: 'is_external_url',
    returns: ['bool'],
    note: "tells whether a URL's host is outside the loopback and private address ranges (only `localhost` counts as internal among host names: Edict resolves no names)",
    signature: [str],
    fn: isExternalUrl,
  },
];
