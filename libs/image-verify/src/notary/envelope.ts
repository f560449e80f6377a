/**
 * Reads a notation signature envelope (JWS JSON flattened or COSE_Sign1_Tagged) into one neutral
 * form, checking the envelope's own rules: required and critical headers, the signing scheme, the
 * content type. Cryptography and trust are checked by verify-envelope.ts.
 */
import { CborMap, CborTag, decodeCbor, encodeCbor, type CborValue } from './cbor';
import {
  COSE_ALGORITHMS,
  COSE_MEDIA_TYPE,
  HEADER_AUTHENTIC_SIGNING_TIME,
  HEADER_EXPIRY,
  HEADER_SIGNING_AGENT,
  HEADER_SIGNING_SCHEME,
  HEADER_SIGNING_TIME,
  HEADER_TIMESTAMP_SIGNATURE,
  HEADER_VERIFICATION_PLUGIN,
  HEADER_VERIFICATION_PLUGIN_MIN_VERSION,
  JWS_MEDIA_TYPE,
  NOTARY_PAYLOAD_TYPE,
  SCHEME_SIGNING_AUTHORITY,
  SCHEME_X509,
  type NotaryAlgorithm,
} from './constants';

export interface NotationEnvelope {
  format: 'jws' | 'cose';
  algorithm: NotaryAlgorithm;
  signingScheme: typeof SCHEME_X509 | typeof SCHEME_SIGNING_AUTHORITY;
  /** `signingTime` (x509, unauthenticated) or `authenticSigningTime` (signingAuthority). */
  signingTime: Date;
  expiry?: Date;
  /** DER certificates, signing certificate first. */
  certChain: Uint8Array[];
  /** RFC 3161 TimeStampToken countersigning `signature`. */
  timestampToken?: Uint8Array;
  payload: Uint8Array;
  /** The bytes the signature is computed over. */
  signingInput: Uint8Array;
  signature: Uint8Array;
  signingAgent?: string;
}

/** The envelope is malformed or breaks the specification: the signature does not verify. */
export class EnvelopeError extends Error {
  override readonly name = 'EnvelopeError';
}

/** Headers this verifier understands, so may be critical. */
const KNOWN_CRITICAL = new Set([HEADER_SIGNING_SCHEME, HEADER_AUTHENTIC_SIGNING_TIME, HEADER_EXPIRY]);
const JWS_ALGORITHMS = new Set<string>(['PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512']);

export function parseEnvelope(mediaType: string, bytes: Uint8Array): NotationEnvelope {
  if (mediaType === JWS_MEDIA_TYPE) return parseJws(bytes);
  if (mediaType === COSE_MEDIA_TYPE) return parseCose(bytes);
  throw new EnvelopeError(
    `signature envelope media type ${JSON.stringify(mediaType)} is not supported (${JWS_MEDIA_TYPE} or ${COSE_MEDIA_TYPE})`,
  );
}

/** What both formats' protected headers say once decoded. */
interface ProtectedHeaders {
  algorithm: NotaryAlgorithm;
  contentType: unknown;
  crit: unknown;
  headers: Map<string, unknown>;
  /** Decodes a time header value. */
  time(value: unknown, name: string): Date;
}

function parseJws(bytes: Uint8Array): NotationEnvelope {
  let envelope: unknown;
  try {
    envelope = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new EnvelopeError('JWS envelope is not JSON');
  }
  if (!isObject(envelope)) throw new EnvelopeError('JWS envelope is not a JSON object');
  for (const key of Object.keys(envelope)) {
    if (!['payload', 'protected', 'header', 'signature'].includes(key)) {
      throw new EnvelopeError(
        `JWS envelope field ${JSON.stringify(key)} is not allowed (flattened JSON serialization only)`,
      );
    }
  }
  const { payload, protected: protectedText, header, signature } = envelope;
  if (typeof payload !== 'string' || typeof protectedText !== 'string' || typeof signature !== 'string') {
    throw new EnvelopeError('JWS envelope needs string payload, protected and signature');
  }
  let headers: unknown;
  try {
    headers = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(base64url(protectedText, 'protected')));
  } catch (error) {
    if (error instanceof EnvelopeError) throw error;
    throw new EnvelopeError('JWS protected header is not JSON');
  }
  if (!isObject(headers)) throw new EnvelopeError('JWS protected header is not a JSON object');
  if (typeof headers.alg !== 'string' || !JWS_ALGORITHMS.has(headers.alg)) {
    throw new EnvelopeError(`JWS alg ${JSON.stringify(headers.alg)} is not one of ${[...JWS_ALGORITHMS].join(', ')}`);
  }
  const named = new Map(Object.entries(headers).filter(([k]) => !['alg', 'cty', 'crit'].includes(k)));
  const protectedHeaders: ProtectedHeaders = {
    algorithm: headers.alg as NotaryAlgorithm,
    contentType: headers.cty,
    crit: headers.crit,
    headers: named,
    time: (value, name) => {
      if (typeof value !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(value)) {
        throw new EnvelopeError(`JWS header ${name} is not an RFC 3339 time`);
      }
      return new Date(value);
    },
  };
  if (header !== undefined && !isObject(header)) throw new EnvelopeError('JWS unprotected header is not an object');
  const unprotected = (header ?? {}) as Record<string, unknown>;
  const x5c = unprotected.x5c;
  if (!Array.isArray(x5c) || x5c.length === 0 || !x5c.every((c) => typeof c === 'string')) {
    throw new EnvelopeError('JWS header x5c (the certificate chain) is missing');
  }
  const timestamp = unprotected[HEADER_TIMESTAMP_SIGNATURE];
  if (timestamp !== undefined && typeof timestamp !== 'string')
    throw new EnvelopeError(`JWS header ${HEADER_TIMESTAMP_SIGNATURE} is not a string`);
  const agent = unprotected[HEADER_SIGNING_AGENT];
  return {
    format: 'jws',
    ...checkProtected(protectedHeaders),
    certChain: (x5c as string[]).map((c, i) => base64(c, `x5c[${i}]`)),
    timestampToken: timestamp === undefined ? undefined : base64(timestamp, HEADER_TIMESTAMP_SIGNATURE),
    payload: base64url(payload, 'payload'),
    signingInput: new TextEncoder().encode(`${protectedText}.${payload}`),
    signature: base64url(signature, 'signature'),
    signingAgent: typeof agent === 'string' ? agent : undefined,
  };
}

const COSE_ALG = 1;
const COSE_CRIT = 2;
const COSE_CONTENT_TYPE = 3;
const COSE_X5CHAIN = 33;
const COSE_SIGN1_TAG = 18;

function parseCose(bytes: Uint8Array): NotationEnvelope {
  let decoded: CborValue;
  try {
    decoded = decodeCbor(bytes);
  } catch (error) {
    throw new EnvelopeError(`COSE envelope is not valid CBOR: ${(error as Error).message}`);
  }
  if (!(decoded instanceof CborTag) || decoded.tag !== COSE_SIGN1_TAG)
    throw new EnvelopeError('COSE envelope is not a COSE_Sign1_Tagged (tag 18)');
  const parts = decoded.value;
  if (!Array.isArray(parts) || parts.length !== 4) throw new EnvelopeError('COSE_Sign1 is not an array of 4 items');
  const [protectedBytes, unprotected, payload, signature] = parts;
  if (
    !(protectedBytes instanceof Uint8Array) ||
    !(payload instanceof Uint8Array) ||
    !(signature instanceof Uint8Array)
  ) {
    throw new EnvelopeError(
      'COSE_Sign1 protected header, payload and signature must be byte strings (detached payloads are not supported)',
    );
  }
  if (!(unprotected instanceof CborMap)) throw new EnvelopeError('COSE_Sign1 unprotected header is not a map');
  let protectedMap: CborValue;
  try {
    protectedMap = decodeCbor(protectedBytes);
  } catch (error) {
    throw new EnvelopeError(`COSE protected header is not valid CBOR: ${(error as Error).message}`);
  }
  if (!(protectedMap instanceof CborMap)) throw new EnvelopeError('COSE protected header is not a map');
  const alg = protectedMap.get(COSE_ALG);
  const algorithm = typeof alg === 'number' ? COSE_ALGORITHMS[alg] : undefined;
  if (!algorithm) throw new EnvelopeError(`COSE alg ${String(alg)} is not one of the Notary Project algorithms`);
  const named = new Map<string, unknown>();
  for (const [key, value] of protectedMap.entries) {
    if (typeof key === 'string') named.set(key, value);
  }
  const protectedHeaders: ProtectedHeaders = {
    algorithm,
    contentType: protectedMap.get(COSE_CONTENT_TYPE),
    crit: protectedMap.get(COSE_CRIT),
    headers: named,
    time: (value, name) => {
      // Epoch-based date/time: tag 1 around an integer number of seconds.
      if (!(value instanceof CborTag) || value.tag !== 1 || typeof value.value !== 'number') {
        throw new EnvelopeError(`COSE header ${name} is not an epoch date/time (tag 1)`);
      }
      return new Date(value.value * 1000);
    },
  };
  const chain = unprotected.get(COSE_X5CHAIN) ?? protectedMap.get(COSE_X5CHAIN);
  const certChain = chain instanceof Uint8Array ? [chain] : chain;
  if (!Array.isArray(certChain) || certChain.length === 0 || !certChain.every((c) => c instanceof Uint8Array)) {
    throw new EnvelopeError('COSE header x5chain (label 33, the certificate chain) is missing');
  }
  const timestamp = unprotected.get(HEADER_TIMESTAMP_SIGNATURE);
  if (timestamp !== undefined && !(timestamp instanceof Uint8Array))
    throw new EnvelopeError(`COSE header ${HEADER_TIMESTAMP_SIGNATURE} is not a byte string`);
  const agent = unprotected.get(HEADER_SIGNING_AGENT);
  return {
    format: 'cose',
    ...checkProtected(protectedHeaders),
    certChain: certChain as Uint8Array[],
    timestampToken: timestamp,
    payload,
    signingInput: encodeCbor(['Signature1', protectedBytes, new Uint8Array(0), payload]),
    signature,
    signingAgent: typeof agent === 'string' ? agent : undefined,
  };
}

/** The signature specification's rules on signed attributes, shared by both formats. */
function checkProtected(
  h: ProtectedHeaders,
): Pick<NotationEnvelope, 'algorithm' | 'signingScheme' | 'signingTime' | 'expiry'> {
  if (h.contentType !== NOTARY_PAYLOAD_TYPE) {
    throw new EnvelopeError(`payload content type ${JSON.stringify(h.contentType)} is not ${NOTARY_PAYLOAD_TYPE}`);
  }
  if (!Array.isArray(h.crit) || h.crit.length === 0) throw new EnvelopeError('critical header list (crit) is missing');
  const crit = new Set<string>();
  for (const name of h.crit) {
    if (typeof name !== 'string') throw new EnvelopeError(`critical header ${String(name)} is not understood`);
    if (name === HEADER_VERIFICATION_PLUGIN || name === HEADER_VERIFICATION_PLUGIN_MIN_VERSION) {
      throw new EnvelopeError(
        `the signature requires verification plugin ${JSON.stringify(h.headers.get(HEADER_VERIFICATION_PLUGIN))}, which is not supported`,
      );
    }
    if (!KNOWN_CRITICAL.has(name)) throw new EnvelopeError(`critical header ${JSON.stringify(name)} is not understood`);
    if (!h.headers.has(name))
      throw new EnvelopeError(`critical header ${JSON.stringify(name)} is listed in crit but not present`);
    crit.add(name);
  }
  if (!crit.has(HEADER_SIGNING_SCHEME)) throw new EnvelopeError(`${HEADER_SIGNING_SCHEME} must be a critical header`);
  const scheme = h.headers.get(HEADER_SIGNING_SCHEME);
  let signingTime: Date;
  if (scheme === SCHEME_X509) {
    if (!h.headers.has(HEADER_SIGNING_TIME))
      throw new EnvelopeError(`${HEADER_SIGNING_TIME} is required with signing scheme ${SCHEME_X509}`);
    if (h.headers.has(HEADER_AUTHENTIC_SIGNING_TIME))
      throw new EnvelopeError(`${HEADER_AUTHENTIC_SIGNING_TIME} is not valid with signing scheme ${SCHEME_X509}`);
    signingTime = h.time(h.headers.get(HEADER_SIGNING_TIME), HEADER_SIGNING_TIME);
  } else if (scheme === SCHEME_SIGNING_AUTHORITY) {
    if (!crit.has(HEADER_AUTHENTIC_SIGNING_TIME)) {
      throw new EnvelopeError(
        `${HEADER_AUTHENTIC_SIGNING_TIME} is required and critical with signing scheme ${SCHEME_SIGNING_AUTHORITY}`,
      );
    }
    if (h.headers.has(HEADER_SIGNING_TIME))
      throw new EnvelopeError(`${HEADER_SIGNING_TIME} is not valid with signing scheme ${SCHEME_SIGNING_AUTHORITY}`);
    signingTime = h.time(h.headers.get(HEADER_AUTHENTIC_SIGNING_TIME), HEADER_AUTHENTIC_SIGNING_TIME);
  } else {
    throw new EnvelopeError(
      `signing scheme ${JSON.stringify(scheme)} is not supported (${SCHEME_X509}, ${SCHEME_SIGNING_AUTHORITY})`,
    );
  }
  let expiry: Date | undefined;
  if (h.headers.has(HEADER_EXPIRY)) {
    if (!crit.has(HEADER_EXPIRY)) throw new EnvelopeError(`${HEADER_EXPIRY} must be a critical header`);
    expiry = h.time(h.headers.get(HEADER_EXPIRY), HEADER_EXPIRY);
    if (expiry.getTime() <= signingTime.getTime()) throw new EnvelopeError('expiry is not after the signing time');
  }
  if (Number.isNaN(signingTime.getTime())) throw new EnvelopeError('signing time is not a valid time');
  return { algorithm: h.algorithm, signingScheme: scheme, signingTime, expiry };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function base64url(text: string, what: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new EnvelopeError(`JWS ${what} is not base64url`);
  return new Uint8Array(Buffer.from(text, 'base64url'));
}

function base64(text: string, what: string): Uint8Array {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new EnvelopeError(`${what} is not base64`);
  return new Uint8Array(Buffer.from(text, 'base64'));
}
