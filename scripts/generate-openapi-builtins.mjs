// Writes libs/apiserver/src/http/openapi-builtins.json: OpenAPI schemas (types, required fields and
// descriptions) of Kubernetes' built-in kinds and everything they reference, which the in-memory
// API server publishes at /openapi/v2 and /openapi/v3 for `kubectl explain` and client-side
// validation.
//
// Source: @kubernetes/client-node's generated models (Apache-2.0), themselves generated from
// Kubernetes' OpenAPI: `attributeTypeMap` (JSON names, types, formats) in the .js files, field
// and type descriptions and optional markers in the .d.ts files. Definition names are Kubernetes'
// (`io.k8s.api.core.v1.PodSpec`), found through the protobuf package of the same type in
// protobuf-schema.json.
//
// Usage: node scripts/generate-openapi-builtins.mjs [--check]   (--check: fail if the committed file differs)
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const MODELS = join(dirname(require.resolve('@kubernetes/client-node/package.json')), 'dist/gen/models');
const PROTOBUF = JSON.parse(readFileSync(new URL('../libs/apiserver/src/http/protobuf-schema.json', import.meta.url)));
const OUTPUT = new URL('../libs/apiserver/src/http/openapi-builtins.json', import.meta.url);

/** A doc comment's text: the leading `*` of each line gone, the generator's escapes undone. */
const text = (doc) =>
  doc
    .split('\n')
    .map((line) => line.replace(/^\s*\*\s?/, '').trim())
    .filter((line) => line !== '')
    .join('\n')
    .replace(/\\(["'\\])/g, '$1');

/** Model name → { attributes, description, fields: name → { description, optional } }. */
function readModel(name) {
  const js = readFileSync(join(MODELS, `${name}.js`), 'utf8');
  const match = new RegExp(`${name}\\.attributeTypeMap = (\\[[\\s\\S]*?\\]);`).exec(js);
  if (!match) return undefined;
  const attributes = JSON.parse(match[1]);
  const dts = readFileSync(join(MODELS, `${name}.d.ts`), 'utf8');
  const DOC = String.raw`\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*`;
  const classDoc = new RegExp(`${DOC}export declare class ${name}\\b`).exec(dts);
  const body = dts.slice(dts.indexOf(`export declare class ${name}`));
  const fields = {};
  for (const [, doc, field, optional] of body.matchAll(new RegExp(`(?:${DOC})?'([^']+)'(\\?)?:`, 'g'))) {
    fields[field] = { description: doc ? text(doc) : undefined, optional: !!optional };
  }
  return { attributes, description: classDoc ? text(classDoc[1]) : undefined, fields };
}

const modelNames = readdirSync(MODELS)
  .filter((file) => file.endsWith('.js') && file !== 'ObjectSerializer.js' && file !== 'all.js')
  .map((file) => file.slice(0, -3));
const models = new Map();
for (const name of modelNames) {
  const model = readModel(name);
  if (model) models.set(name, model);
}

// Kubernetes' definition name of a model: its protobuf message with `io.k8s.` in front.
const MODEL_NAME = /^([A-Z][a-z]+(?:[A-Z][a-z]+)*?)?(V\d+(?:(?:alpha|beta)\d+)?)([A-Z]\w*)$/;
const messages = Object.keys(PROTOBUF);
function definitionName(model) {
  const parts = MODEL_NAME.exec(model);
  if (!parts) return model;
  const [, prefix, version, kind] = parts;
  const suffix = `.${version.toLowerCase()}.${kind}`;
  let candidates = messages.filter((message) => message.endsWith(suffix));
  if (prefix) candidates = candidates.filter((message) => message.includes(`.${prefix.toLowerCase()}.`));
  if (candidates.length > 1)
    candidates = candidates.filter((message) => message.startsWith('k8s.io.api.core.') || message.includes('.meta.'));
  if (candidates.length === 1) return candidates[0].replace(/^k8s\.io\./, 'io.k8s.');
  if (
    kind.startsWith('CustomResource') ||
    kind.startsWith('JSONSchemaProps') ||
    ['WebhookClientConfig', 'ServiceReference', 'ExternalDocumentation', 'ValidationRule', 'SelectableField'].includes(
      kind,
    )
  ) {
    if (modelsUsedByApiextensions.has(model)) return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions${suffix}`;
  }
  return `io.k8s.api${prefix ? `.${prefix.toLowerCase()}` : ''}${suffix}`;
}
const modelsUsedByApiextensions = new Set();
(function markApiextensions(name) {
  if (modelsUsedByApiextensions.has(name) || !models.has(name)) return;
  modelsUsedByApiextensions.add(name);
  for (const attribute of models.get(name).attributes)
    for (const ref of referenced(attribute.type)) markApiextensions(ref);
})('V1CustomResourceDefinition');

function referenced(type) {
  return [...type.matchAll(/\b([A-Z][A-Za-z0-9]*V\d\w*|V\d\w*)\b/g)]
    .map((m) => m[1])
    .filter((name) => models.has(name));
}

function schemaOf(type, format) {
  const array = /^Array<(.+)>$/.exec(type);
  if (array) return { type: 'array', items: schemaOf(array[1], '') };
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) return { type: 'object', additionalProperties: schemaOf(map[1], '') };
  switch (type) {
    case 'string':
      if (format === 'int-or-string') return { 'x-kubernetes-int-or-string': true };
      return format ? { type: 'string', format } : { type: 'string' };
    case 'V1MicroTime':
      return { type: 'string', format: 'date-time' };
    case 'Date':
      return { type: 'string', format: format || 'date-time' };
    case 'number':
      return format === 'double' ? { type: 'number', format } : { type: 'integer', ...(format ? { format } : {}) };
    case 'boolean':
      return { type: 'boolean' };
    case 'IntOrString':
      return { 'x-kubernetes-int-or-string': true };
    case 'any':
      return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    default:
      if (models.has(type)) return { $ref: definitionName(type) };
      throw new Error(`unknown type ${type}`);
  }
}

// Field descriptions the client-node models leave out (those of fields whose type is a model) are
// taken from kubernetes-models (MIT, Kubernetes 1.27 OpenAPI), which keeps them in its .d.ts files.
const KUBERNETES_MODELS = dirname(require.resolve('kubernetes-models/package.json'));
const APIMACHINERY = dirname(require.resolve('@kubernetes-models/apimachinery/package.json'));
const fieldDocsCache = new Map();
function kubernetesModelsFile(definition) {
  if (definition.startsWith('io.k8s.apimachinery.pkg.apis.meta.')) {
    const [version, name] = definition.split('.').slice(-2);
    return join(APIMACHINERY, 'apis/meta', version, `${name}.d.ts`);
  }
  const match = /^io\.k8s\.(?:api|apiextensions-apiserver\.pkg\.apis)\.([a-z0-9]+)\.(v\w+)\.(\w+)$/.exec(definition);
  if (!match) return undefined;
  const [, pkg, version, name] = match;
  const dir =
    pkg === 'core' ? '' : readdirSync(KUBERNETES_MODELS).find((entry) => entry === pkg || entry.startsWith(`${pkg}.`));
  return dir === undefined ? undefined : join(KUBERNETES_MODELS, dir, version, `${name}.d.ts`);
}
function fieldDocs(definition) {
  if (fieldDocsCache.has(definition)) return fieldDocsCache.get(definition);
  const docs = {};
  const file = kubernetesModelsFile(definition);
  let dts = '';
  try {
    dts = file ? readFileSync(file, 'utf8') : '';
  } catch {
    // Not in kubernetes-models (a kind newer than its Kubernetes 1.27): no fallback.
  }
  const body = dts.slice(dts.indexOf('export interface'));
  for (const [, doc, field] of body.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*"([^"]+)"\??:/g))
    docs[field] = text(doc);
  fieldDocsCache.set(definition, docs);
  return docs;
}

function definition(name) {
  const model = models.get(name);
  const properties = {};
  const required = [];
  for (const { name: field, baseName, type, format } of model.attributes) {
    const doc = model.fields[field];
    const description = doc?.description ?? fieldDocs(definitionName(name))[baseName];
    properties[baseName] = { ...schemaOf(type, format), ...(description ? { description } : {}) };
    if (doc && !doc.optional) required.push(baseName);
  }
  return {
    ...(model.description ? { description: model.description } : {}),
    type: 'object',
    ...(Object.keys(properties).length > 0 ? { properties } : {}),
    ...(required.length > 0 ? { required } : {}),
  };
}

// The kinds the server serves (registry/builtin-types.ts) and everything they reference.
const builtinTypes = readFileSync(new URL('../libs/apiserver/src/registry/builtin-types.ts', import.meta.url), 'utf8');
const served = new Set();
for (const [, body] of builtinTypes.matchAll(/\.\.\.group\(([^\n]*(?:\n(?!\s*\.\.\.group\()[^\n]*)*)/g)) {
  const [, version] = /^'[^']*', '([^']+)'/.exec(body);
  for (const [, kind] of body.matchAll(/kind: '([A-Za-z]+)'/g)) served.add(`${version}.${kind}`);
}
const isServed = (name) => served.has(definitionName(name).split('.').slice(-2).join('.'));
const definitions = {};
const pending = [...models.keys()].filter(isServed);
const seen = new Set();
while (pending.length > 0) {
  const name = pending.pop();
  if (seen.has(name)) continue;
  seen.add(name);
  const key = definitionName(name);
  if (definitions[key]) throw new Error(`two models are ${key}`);
  definitions[key] = definition(name);
  for (const attribute of models.get(name).attributes) pending.push(...referenced(attribute.type));
}
const sorted = Object.fromEntries(Object.entries(definitions).sort(([a], [b]) => a.localeCompare(b)));
const output = `${JSON.stringify({
  source:
    '@kubernetes/client-node and kubernetes-models (Kubernetes OpenAPI v1.34.0, descriptions of 1.27 for referenced types)',
  definitions: sorted,
})}\n`;
if (process.argv.includes('--check')) {
  // The drift check a spec runs: the committed file must be what the script writes.
  if (readFileSync(OUTPUT, 'utf8') !== output) {
    console.error(
      `${OUTPUT.pathname} is not what the script generates: run node scripts/generate-openapi-builtins.mjs`,
    );
    process.exit(1);
  }
  console.log(`${OUTPUT.pathname} is up to date`);
} else {
  writeFileSync(OUTPUT, output);
  console.log(`${Object.keys(sorted).length} definitions written to ${OUTPUT.pathname}`);
}
