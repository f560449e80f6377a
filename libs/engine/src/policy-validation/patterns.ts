import { isObject, type JsonValue } from '@edict/foundation';
import { parseAnchor, type Anchor } from '../pattern';
import type { Findings, Path } from './findings';

/** Anchors a validate pattern may use: condition, existence, equality, negation and global. */
export function validateAnchorSupported(anchor: Anchor): boolean {
  return anchor.modifier !== '+';
}

/**
 * Kyverno's ValidatePattern: every anchor key must be supported where it appears, and an
 * existence anchor `^(key)` must hold a non-empty list. Reports the first problem of the pattern
 * (Kyverno stops there too).
 */
export function checkPatternAnchors(
  pattern: JsonValue | undefined,
  path: Path,
  findings: Findings,
  supported: (anchor: Anchor) => boolean,
  prefix = '',
): boolean {
  if (Array.isArray(pattern)) {
    return pattern.every((item, i) => checkPatternAnchors(item, [...path, i], findings, supported, prefix));
  }
  if (!isObject(pattern)) return true;
  for (const key of Object.keys(pattern)) {
    const value = pattern[key]!;
    const anchor = parseAnchor(key);
    if (anchor) {
      if (!supported(anchor)) {
        findings.error([...path, key], `${prefix}unsupported anchor ${key}`);
        return false;
      }
      if (anchor.modifier === '^') {
        if (!Array.isArray(value)) {
          findings.error([...path, key], `${prefix}existence anchor should have value of type list`);
          return false;
        }
        if (value.length === 0) {
          findings.error([...path, key], `${prefix}existence anchor: should have atleast one value`);
          return false;
        }
      }
    }
    if (!checkPatternAnchors(value, [...path, key], findings, supported, prefix)) return false;
  }
  return true;
}

/**
 * Labels and annotations in patterns and strategic-merge patches must be strings (Kyverno's
 * isLabelAndAnnotationsString looks at `metadata` and `spec.template.metadata`).
 */
export function labelsAndAnnotationsAreStrings(pattern: JsonValue | undefined): boolean {
  if (!isObject(pattern)) return true;
  for (const key of Object.keys(pattern)) {
    if (key === 'metadata') return metadataStrings(pattern.metadata);
    if (key === 'spec') {
      const spec = pattern.spec;
      const template = isObject(spec) ? spec.template : undefined;
      return metadataStrings(isObject(template) ? template.metadata : undefined);
    }
  }
  return true;
}

function metadataStrings(metadata: JsonValue | undefined): boolean {
  if (!isObject(metadata)) return true;
  for (const field of ['labels', 'annotations']) {
    const map = metadata[field];
    if (isObject(map) && !Object.values(map).every((v) => typeof v === 'string')) return false;
  }
  return true;
}
