import { createHash } from 'node:crypto';
import type { JsonValue } from '@edict/foundation';
import { JmesPathError } from '../errors';
import type { FunctionDefinition } from '../runtime';
import { str } from './signatures';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DECODE = new Map([...ALPHABET].map((c, i) => [c, i]));

const corrupt = (offset: number) => new JmesPathError(`illegal base64 data at input byte ${offset}`);

/**
 * Go `base64.StdEncoding.DecodeString`: padded standard alphabet, CR/LF ignored, errors name the
 * offending input offset. Returns raw bytes.
 */
export function decodeStdBase64(input: string): Buffer {
  const bytes: number[] = [];
  let si = 0;
  const nextChar = (): [string | undefined, number] => {
    while (si < input.length && (input[si] === '\n' || input[si] === '\r')) si++;
    if (si >= input.length) return [undefined, si];
    return [input[si++], si - 1];
  };
  for (;;) {
    const quantum: number[] = [];
    for (let j = 0; j < 4; j++) {
      const [c, at] = nextChar();
      if (c === undefined) {
        if (j === 0) return Buffer.from(bytes);
        throw corrupt(si - j);
      }
      if (c === '=') {
        if (j < 2) throw corrupt(at);
        if (j === 2) {
          const [second, secondAt] = nextChar();
          if (second === undefined) throw corrupt(input.length);
          if (second !== '=') throw corrupt(secondAt);
        }
        const [extra, extraAt] = nextChar();
        if (extra !== undefined) throw corrupt(extraAt);
        emit(bytes, quantum);
        return Buffer.from(bytes);
      }
      const v = DECODE.get(c);
      if (v === undefined) throw corrupt(at);
      quantum.push(v);
    }
    emit(bytes, quantum);
  }
}

function emit(bytes: number[], quantum: number[]): void {
  const [a = 0, b = 0, c = 0, d = 0] = quantum;
  const n = (a << 18) | (b << 12) | (c << 6) | d;
  bytes.push((n >> 16) & 0xff);
  if (quantum.length > 2) bytes.push((n >> 8) & 0xff);
  if (quantum.length > 3) bytes.push(n & 0xff);
}

const digest = (algorithm: string) => (args: JsonValue[]) =>
  createHash(algorithm)
    .update(args[0] as string, 'utf8')
    .digest('hex');

export const encodingFunctions: FunctionDefinition[] = [
  // Invalid UTF-8 in the decoded bytes becomes U+FFFD, as when Go later encodes the string as JSON.
  {
    name: 'base64_decode',
    returns: ['string'],
    note: 'decodes a base 64 string',
    signature: [str],
    fn: (a) => decodeStdBase64(a[0] as string).toString('utf8'),
  },
  {
    name: 'base64_encode',
    returns: ['string'],
    note: 'encodes a regular, plaintext and unencoded string to base64',
    signature: [str],
    fn: (a) => Buffer.from(a[0] as string, 'utf8').toString('base64'),
  },
  {
    name: 'sha256',
    returns: ['string'],
    note: 'hashes a string with SHA-256 and returns the digest in hexadecimal',
    signature: [str],
    fn: digest('sha256'),
  },
  {
    name: 'md5',
    returns: ['string'],
    note: 'hashes a string with MD5 and returns the digest in hexadecimal',
    signature: [str],
    fn: digest('md5'),
  },
];
