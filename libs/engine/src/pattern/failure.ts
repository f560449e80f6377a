/**
 * Why a pattern did not match, as Kyverno classifies it. The kind decides the rule's outcome:
 * a conditional or global anchor mismatch (or an array whose every element was skipped) skips the
 * rule; a negation anchor match fails it; anything else fails it (or errors, see `matchPattern`).
 */
export type FailureKind = 'plain' | 'conditional' | 'global' | 'negation' | 'all-elements-skipped';

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
  return f.kind === 'conditional' || f.kind === 'global' || f.kind === 'all-elements-skipped';
}

/** Kyverno prefixes anchor errors with what kind of anchor produced them. */
export const CONDITIONAL_PREFIX = 'conditional anchor mismatch: ';
export const GLOBAL_PREFIX = 'global anchor mismatch: ';
export const NEGATION_PREFIX = 'negation anchor matched in resource: ';
