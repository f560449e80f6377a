import { gunzipSync, gzipSync } from 'node:zlib';
import type { Environment } from '@marcbachmann/cel-js';
import { errorMessage } from '@edict/foundation';
import { celError } from '../libraries/errors';
import { namespaceFunction } from '../libraries/namespace';
import type { KyvernoCelLimits } from './ports';

/**
 * Kyverno's gzip library: `gzip.compress(string): bytes` (no modification time, so the output is
 * deterministic) and `gzip.decompress(bytes): string`, whose output is capped (a small input can
 * inflate enormously).
 */
export function registerGzip(env: Environment, limits: KyvernoCelLimits): void {
  namespaceFunction(env, 'gzip.compress(dyn): bytes', (value: unknown) => {
    if (typeof value !== 'string') throw celError(`gzip.compress: expected a string, got ${typeof value}`);
    return new Uint8Array(gzipSync(Buffer.from(value, 'utf8')));
  });
  namespaceFunction(env, 'gzip.decompress(bytes): string', (data: Uint8Array) => {
    try {
      return gunzipSync(data, { maxOutputLength: limits.maxDocumentLength }).toString('utf8');
    } catch (error) {
      throw celError(`gzip.decompress: ${errorMessage(error)}`);
    }
  });
}
