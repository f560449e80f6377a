import { createHash } from 'node:crypto';
import type { Environment } from '@marcbachmann/cel-js';
import { namespaceFunction } from '../libraries/namespace';

/** Kyverno's hash library: `sha1`, `sha256`, `md5` of a string's UTF-8 bytes, lower-case hex; also as `hash.sha1`... */
export function registerHash(env: Environment): void {
  for (const algorithm of ['sha1', 'sha256', 'md5']) {
    const digest = (text: string): string => createHash(algorithm).update(text, 'utf8').digest('hex');
    env.registerFunction(`${algorithm}(string): string`, digest);
    namespaceFunction(env, `hash.${algorithm}(string): string`, digest);
  }
}
