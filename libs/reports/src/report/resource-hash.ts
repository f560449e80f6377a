/**
 * Kyverno's resource hash (CalculateResourceHash): an MD5 over the object's labels, annotations and
 * content without metadata, status, scale and a Pod's spec.nodeName. It changes when what policies
 * see changes, not when the API server or scheduler touch bookkeeping fields, so the reports
 * controller can tell a stale report from a current one.
 */
import { createHash } from 'node:crypto';
import { goJson, goJsonWithout, type GoJsonOmissions } from '@edict/engine';

type Json = Record<string, unknown>;

const HASHED_CONTENT_OMITS: GoJsonOmissions = new Map<string, GoJsonOmissions | true>([
  ['metadata', true],
  ['status', true],
  ['scale', true],
  ['spec', new Map([['nodeName', true]])],
]);

/** The Go JSON of `[labels, annotations, content]`, written from the object itself: it runs on every admitted object. */
export function resourceHash(object: Json | undefined): string {
  if (!object) return '';
  const metadata = (object.metadata ?? {}) as Json;
  const text =
    '[' +
    goJson(metadata.labels ?? null) +
    ',' +
    goJson(metadata.annotations ?? null) +
    ',' +
    goJsonWithout(object, HASHED_CONTENT_OMITS) +
    ']';
  return createHash('md5').update(text).digest('hex');
}
