/**
 * What the leader last made of each synchronized downstream object (Kyverno's watcher metadata
 * cache): a digest of its content by uid, so that a watch event of its own write is told from a
 * user's change, the clone sources the copies came from, so that a change to a source is
 * recognised, and the triggers they were generated for, so that a change to one is. In memory and bounded: a new leader starts empty and refills it with its first
 * pass over the policies; an object it does not know is reconciled, which is never wrong.
 */
import { createHash } from 'node:crypto';
import { LABEL_SOURCE_UID } from '@edict/cel-policies';
import { LABEL_TRIGGER_UID } from '@edict/engine';
import { isObject, type JsonValue, type KubeObject } from '@edict/foundation';

/** Server-set metadata, not part of what a policy generates. */
const SERVER_METADATA = new Set([
  'uid',
  'resourceVersion',
  'creationTimestamp',
  'managedFields',
  'generation',
  'selfLink',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
]);

export class DownstreamRecord {
  private readonly digests = new Map<string, string>();
  /** Clone source uid → the number of recorded copies of it. */
  private readonly sources = new Map<string, number>();
  private readonly sourceOf = new Map<string, string>();
  /** Trigger uid → the number of recorded downstream objects of it. */
  private readonly triggers = new Map<string, number>();
  private readonly triggerOf = new Map<string, string>();

  constructor(private readonly maxObjects: number) {}

  /** Records `object` as the leader left it. */
  record(object: KubeObject): void {
    const uid = object.metadata?.uid;
    if (!uid) return;
    if (!this.digests.has(uid) && this.digests.size >= this.maxObjects) {
      // Past the bound the oldest entry goes: an object no longer known is reconciled on its next change.
      const [oldest] = this.digests.keys();
      if (oldest !== undefined) this.forget(oldest);
    }
    this.forget(uid);
    this.digests.set(uid, contentDigest(object));
    const source = object.metadata?.labels?.[LABEL_SOURCE_UID];
    if (source) {
      this.sourceOf.set(uid, source);
      this.sources.set(source, (this.sources.get(source) ?? 0) + 1);
    }
    const trigger = object.metadata?.labels?.[LABEL_TRIGGER_UID];
    if (trigger) {
      this.triggerOf.set(uid, trigger);
      this.triggers.set(trigger, (this.triggers.get(trigger) ?? 0) + 1);
    }
  }

  /** Whether `object` is as the leader left it (false for an object it does not know). */
  unchanged(object: KubeObject): boolean {
    const uid = object.metadata?.uid;
    return uid !== undefined && this.digests.get(uid) === contentDigest(object);
  }

  forget(uid: string): void {
    this.digests.delete(uid);
    release(this.sourceOf, this.sources, uid);
    release(this.triggerOf, this.triggers, uid);
  }

  /** Whether a recorded copy came from the object with this uid. */
  isSource(uid: string): boolean {
    return this.sources.has(uid);
  }

  /** Whether a recorded downstream object was generated for the trigger with this uid. */
  isTrigger(uid: string): boolean {
    return this.triggers.has(uid);
  }

  clear(): void {
    this.digests.clear();
    this.sources.clear();
    this.sourceOf.clear();
    this.triggers.clear();
    this.triggerOf.clear();
  }

  get size(): number {
    return this.digests.size;
  }
}

/** Drops `uid`'s reference in `of` and the count it held in `counts`. */
function release(of: Map<string, string>, counts: Map<string, number>, uid: string): void {
  const key = of.get(uid);
  if (key === undefined) return;
  of.delete(uid);
  const left = (counts.get(key) ?? 1) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}

/** A digest of what a policy controls of an object: everything but status and server-set metadata. */
export function contentDigest(object: KubeObject): string {
  const { status: _status, metadata = {}, ...rest } = object as KubeObject & { status?: unknown };
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(metadata)) if (!SERVER_METADATA.has(key)) kept[key] = value;
  return createHash('sha256')
    .update(canonical({ ...rest, metadata: kept } as JsonValue))
    .digest('hex');
}

/** JSON with object keys sorted, so that equal content gives equal text. */
function canonical(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .filter((key) => value[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key] as JsonValue)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
