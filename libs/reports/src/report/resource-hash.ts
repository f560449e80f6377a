/**
 * Kyverno's resource hash (CalculateResourceHash): an MD5 over the object's labels, annotations and
 * content without metadata, status, scale and a Pod's spec.nodeName. It changes when what policies
 * see changes, not when the API server or scheduler touch bookkeeping fields, so the reports
 * controller can tell a stale report from a current one.
 */
import { createHash } from 'node:crypto';
import { goJson, setOwn } from '@edict/engine';

type Json = Record<string, unknown>;

export function resourceHash(object: Json | undefined): string {
  if (!object) return '';
  const metadata = (object.metadata ?? {}) as Json;
  const rest: Json = {};
  for (const [key, value] of Object.entries(object)) {
    if (key !== 'metadata' && key !== 'status' && key !== 'scale') setOwn(rest, key, value);
  }
  const spec = rest.spec;
  if (spec && typeof spec === 'object' && !Array.isArray(spec) && 'nodeName' in spec) {
    const { nodeName: _dropped, ...others } = spec as Json;
    rest.spec = others;
  }
  const input = [metadata.labels ?? null, metadata.annotations ?? null, rest];
  return createHash('md5').update(goJson(input)).digest('hex');
}
