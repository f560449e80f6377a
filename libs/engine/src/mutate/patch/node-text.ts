/**
 * kyaml works on YAML nodes, where a scalar is its text: list merge keys, primitive set members and
 * Kyverno's anchor conditions on scalars all compare that text, not the typed value.
 */
import type { JsonValue } from '@edict/foundation';
import { stringify } from 'yaml';

/** The text of a scalar as its YAML node holds it (`""` for maps and lists, whose node has no value). */
export function scalarText(value: JsonValue | undefined): string {
  if (value === undefined) return '';
  if (value === null) return 'null';
  if (typeof value === 'object') return '';
  return String(value);
}

export type NodeKind = 'MappingNode' | 'SequenceNode' | 'ScalarNode';

export function nodeKind(value: JsonValue): NodeKind {
  if (Array.isArray(value)) return 'SequenceNode';
  return value !== null && typeof value === 'object' ? 'MappingNode' : 'ScalarNode';
}

/** kyaml's complaint when a patch and the resource disagree on the shape of a field. */
export function wrongKindMessage(expected: NodeKind, value: JsonValue): string {
  return `wrong node kind: expected ${expected} but got ${nodeKind(value)}: node contents:\n${stringify(value)}`;
}
