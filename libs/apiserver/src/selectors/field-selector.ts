/**
 * Field selectors (`metadata.name=x,status.phase!=Running`). Like kube, only `metadata.name`,
 * `metadata.namespace` and the fields a type declares are allowed; others answer 400.
 */
import { isObject, type JsonObject } from '@edict/foundation';
import { badRequest } from '../status';

export interface FieldRequirement {
  readonly field: string;
  readonly negated: boolean;
  readonly value: string;
}

export function parseFieldSelector(selector: string, allowed: readonly string[]): FieldRequirement[] {
  if (selector.trim() === '') return [];
  return selector.split(',').map((raw) => {
    const match = /^\s*([^!=\s]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(raw);
    if (!match) throw badRequest(`invalid selector: '${selector}'; can't understand '${raw}'`);
    const field = match[1]!;
    if (field !== 'metadata.name' && field !== 'metadata.namespace' && !allowed.includes(field)) {
      throw badRequest(`field label not supported: ${field}`);
    }
    return { field, negated: match[2] === '!=', value: match[3]! };
  });
}

/** Selector fields that name a different path in the object (core Events' `source`). */
const FIELD_PATHS: Readonly<Record<string, string>> = { source: 'source.component' };

/** The string a field compares as; absent fields compare as the empty string, booleans as text. */
function fieldValue(object: JsonObject, field: string): string {
  let node: unknown = object;
  for (const segment of (FIELD_PATHS[field] ?? field).split('.')) node = isObject(node) ? node[segment] : undefined;
  if (node === undefined || node === null) return '';
  return typeof node === 'object' ? JSON.stringify(node) : String(node);
}

export function matchesFields(requirements: readonly FieldRequirement[], object: JsonObject): boolean {
  return requirements.every(({ field, negated, value }) => (fieldValue(object, field) === value) !== negated);
}
