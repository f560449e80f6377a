/**
 * Whether a CRD version's schema is structural, by the rules kube-apiserver applies before it
 * accepts a CustomResourceDefinition (apiextensions.k8s.io/v1): every node says its type (or keeps
 * unknown fields, or is an int-or-string); `properties` and `additionalProperties` exclude each
 * other; junctors (allOf, anyOf, oneOf, not) only add constraints on declared fields and carry no
 * type, description, default, nullable or x-kubernetes extension; metadata at the root may only
 * restrict name and generateName; keywords CRDs cannot use are absent.
 */
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';

const TYPES = ['object', 'array', 'string', 'integer', 'number', 'boolean'];
const FORBIDDEN = ['$ref', 'definitions', 'dependencies', 'patternProperties', 'id', '$schema', 'additionalItems'];
const JUNCTORS = ['allOf', 'anyOf', 'oneOf'];
const NOT_IN_JUNCTORS = ['type', 'description', 'default', 'nullable', 'additionalProperties', 'title'];

/** Every violation, as `path: problem`; empty when the schema is structural. */
export function structuralProblems(root: JsonValue): string[] {
  const problems: string[] = [];
  if (!isObject(root)) return ['openAPIV3Schema: must be an object'];
  if (root.type !== 'object') problems.push('openAPIV3Schema.type: must be object');
  if (root.default !== undefined) problems.push('openAPIV3Schema.default: not allowed at the root');
  const properties = isObject(root.properties) ? root.properties : {};
  for (const [name, type] of [
    ['apiVersion', 'string'],
    ['kind', 'string'],
    ['metadata', 'object'],
  ] as const) {
    const field = properties[name];
    if (field !== undefined && (!isObject(field) || field.type !== type)) {
      problems.push(`openAPIV3Schema.properties.${name}: must be of type ${type}`);
    }
  }
  if (isObject(properties.metadata)) checkMetadata(properties.metadata, problems);
  walk(root, 'openAPIV3Schema', false, problems);
  return problems;
}

function checkMetadata(metadata: JsonObject, problems: string[]): void {
  const at = 'openAPIV3Schema.properties.metadata';
  for (const key of Object.keys(metadata)) {
    if (!['type', 'properties', 'description'].includes(key))
      problems.push(`${at}.${key}: metadata may only restrict name and generateName`);
  }
  const properties = isObject(metadata.properties) ? metadata.properties : {};
  for (const [name, field] of Object.entries(properties)) {
    const allowed = (name === 'name' || name === 'generateName') && isObject(field) && field.type === 'string';
    if (!allowed) problems.push(`${at}.properties.${name}: metadata may only restrict name and generateName`);
  }
}

function walk(node: JsonValue, at: string, inJunctor: boolean, problems: string[]): void {
  if (!isObject(node)) {
    problems.push(`${at}: must be a schema object`);
    return;
  }
  for (const key of FORBIDDEN) if (key in node) problems.push(`${at}.${key}: not allowed in a CRD schema`);
  if (node.uniqueItems === true) problems.push(`${at}.uniqueItems: cannot be true in a CRD schema`);
  if (node.additionalProperties === false) problems.push(`${at}.additionalProperties: cannot be false`);
  if ('x-kubernetes-preserve-unknown-fields' in node && node['x-kubernetes-preserve-unknown-fields'] !== true) {
    problems.push(`${at}.x-kubernetes-preserve-unknown-fields: must be true or absent`);
  }
  const preserves = node['x-kubernetes-preserve-unknown-fields'] === true;
  const intOrString = node['x-kubernetes-int-or-string'] === true;
  if (inJunctor) {
    for (const key of NOT_IN_JUNCTORS) if (key in node) problems.push(`${at}.${key}: not allowed inside a junctor`);
    for (const key of Object.keys(node)) {
      if (key.startsWith('x-kubernetes-')) problems.push(`${at}.${key}: not allowed inside a junctor`);
    }
  } else {
    if (intOrString) {
      if ('type' in node) problems.push(`${at}.type: must be empty for x-kubernetes-int-or-string`);
    } else if (typeof node.type !== 'string' || node.type === '') {
      if (!preserves) problems.push(`${at}.type: must not be empty (or set x-kubernetes-preserve-unknown-fields)`);
    } else if (!TYPES.includes(node.type)) {
      problems.push(`${at}.type: unknown type ${JSON.stringify(node.type)}`);
    }
    if (node.type === 'array' && !isObject(node.items)) problems.push(`${at}.items: an array needs one items schema`);
  }
  if (node.properties !== undefined && node.additionalProperties !== undefined) {
    problems.push(`${at}: properties and additionalProperties are mutually exclusive`);
  }
  if (node.default !== undefined && typeof node.type === 'string' && !fitsType(node.default, node.type)) {
    problems.push(`${at}.default: ${JSON.stringify(node.default)} is not of type ${node.type}`);
  }
  if (Array.isArray(node.enum) && typeof node.type === 'string') {
    for (const value of node.enum) {
      if (!fitsType(value, node.type))
        problems.push(`${at}.enum: ${JSON.stringify(value)} is not of type ${node.type}`);
    }
  }
  if (node.description !== undefined && typeof node.description !== 'string') {
    problems.push(`${at}.description: must be a string`);
  }
  if (isObject(node.properties)) {
    for (const [name, child] of Object.entries(node.properties))
      walk(child, `${at}.properties.${name}`, inJunctor, problems);
  } else if (node.properties !== undefined) problems.push(`${at}.properties: must be an object`);
  if (node.items !== undefined) walk(node.items, `${at}.items`, inJunctor, problems);
  if (isObject(node.additionalProperties))
    walk(node.additionalProperties, `${at}.additionalProperties`, inJunctor, problems);
  const declared = isObject(node.properties) ? Object.keys(node.properties) : [];
  for (const junctor of JUNCTORS) {
    const alternatives = node[junctor];
    if (alternatives === undefined) continue;
    if (!Array.isArray(alternatives)) {
      problems.push(`${at}.${junctor}: must be a list`);
      continue;
    }
    alternatives.forEach((alternative, i) => {
      walk(alternative, `${at}.${junctor}[${i}]`, true, problems);
      // A junctor may only constrain fields the structural schema declares.
      const required = isObject(alternative) && Array.isArray(alternative.required) ? alternative.required : [];
      for (const name of required) {
        if (typeof name === 'string' && !declared.includes(name) && !preserves) {
          problems.push(`${at}.${junctor}[${i}].required: ${name} is not a declared property`);
        }
      }
    });
  }
  if (node.not !== undefined) walk(node.not, `${at}.not`, true, problems);
}

function fitsType(value: JsonValue, type: string): boolean {
  switch (type) {
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    default:
      return typeof value === type;
  }
}
