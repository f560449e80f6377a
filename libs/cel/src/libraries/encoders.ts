import type { Environment } from '@marcbachmann/cel-js';
import { celError } from './errors';
import { chargeString } from './runtime';
import { namespaceFunction } from './namespace';

/** cel-go's encoders extension: `base64.encode(bytes)` and `base64.decode(string)` (padding optional). */
export function registerEncoders(env: Environment): void {
  namespaceFunction(env, 'base64.encode(bytes): string', (bytes: Uint8Array) => {
    chargeString(bytes.length);
    let binary = '';
    for (const byte of bytes) binary += String.fromCharCode(byte);
    return btoa(binary);
  });
  namespaceFunction(env, 'base64.decode(string): bytes', (text: string) => {
    chargeString(text.length);
    return decodeBase64(text);
  });
}

/** Standard base64, with or without padding (Go's StdEncoding, then RawStdEncoding). */
export function decodeBase64(text: string): Uint8Array {
  const valid =
    /^[A-Za-z0-9+/]*$/.test(text.replace(/={1,2}$/, '')) &&
    (text.includes('=') ? text.length % 4 === 0 : text.length % 4 !== 1);
  if (!valid) throw celError(`illegal base64 data in ${JSON.stringify(text.slice(0, 64))}`);
  const binary = atob(text);
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}
