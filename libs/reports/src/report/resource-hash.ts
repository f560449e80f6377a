/**
 * Kyverno's resource hash (CalculateResourceHash): an MD5 over the object's labels, annotations and
 * content without metadata, status, scale and a Pod's spec.nodeName. It changes when what policies
 * see changes, not when the API server or scheduler touch bookkeeping fields, so the reports
 * controller can tell a stale report from a current one.
 */
import { hash } from 'node:crypto';
import { goJson, goJsonWithout, type GoJsonOmissions } from '@edict/foundation';

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
  // The one-shot form: no Hash object per call.
  return hash('md5', text, 'hex');
}
