/**
 * Why a pattern did not match, as Kyverno classifies it. The kind decides the rule's outcome:
 * a conditional or global anchor mismatch skips the rule; so does `aggregated-skip`, Kyverno's
 * wrapper for an array (or map) all of whose elements (or entries) were skipped; a negation anchor
 * match fails the rule; anything else fails it (or errors, see `matchPattern`).
 *
 * The difference between a bare anchor mismatch and an aggregated skip matters: a bare one stops
 * the walk at once, while an aggregated one lets the sibling keys of its map be checked.
 */
export type FailureKind = 'plain' | 'conditional' | 'global' | 'negation' | 'aggregated-skip';

export interface Failure {
  /** Kyverno's element path, e.g. `/spec/containers/0/image/` (may be "" where Kyverno gives none). */
  readonly path: string;
  readonly kind: FailureKind;
  /** Kyverno's error text. */
  readonly message: string;
}

export function failure(path: string, message: string, kind: FailureKind = 'plain'): Failure {
  return { path, kind, message };
}

export function isSkip(f: Failure): boolean {
  return f.kind === 'conditional' || f.kind === 'global' || f.kind === 'aggregated-skip';
}

/** Kyverno prefixes anchor errors with what kind of anchor produced them. */
export const CONDITIONAL_PREFIX = 'conditional anchor mismatch: ';
export const GLOBAL_PREFIX = 'global anchor mismatch: ';
export const NEGATION_PREFIX = 'negation anchor matched in resource: ';
