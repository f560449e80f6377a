/**
 * OpenAPI v3 documents: an index, and one document per group version with its kinds' schemas
 * (`openapi-schemas.ts`, each with `x-kubernetes-group-version-kind`: what `kubectl explain` reads
 * and kubectl's apply patches take their merge keys from) and POST/PUT/PATCH operations that list
 * the `fieldValidation` query parameter (so kubectl leaves field validation to the server). Built
 * on first request and kept until the served types change; the index's hashes change with them.
 */
import { createHash } from 'node:crypto';
import type { JsonObject } from '@edict/foundation';
import type { ResourceRegistry } from '../registry/registry';
import { apiVersionOf, type ResourceType } from '../registry/resource-type';
import { allDefinitions, closure, definitionName, withRefs, type Definitions } from './openapi-schemas';

export function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

function groupVersions(registry: ResourceRegistry): Array<{ group: string; version: string }> {
  const seen = new Map<string, { group: string; version: string }>();
  for (const type of registry.all()) seen.set(apiVersionOf(type), { group: type.group, version: type.version });
  return [...seen.values()];
}

interface Cached {
  readonly registryVersion: number;
  readonly documents: Map<string, { readonly text: string; readonly hash: string }>;
  index?: JsonObject;
  definitions?: Definitions;
}

const cache = new WeakMap<ResourceRegistry, Cached>();

function cached(registry: ResourceRegistry): Cached {
  let entry = cache.get(registry);
  if (!entry || entry.registryVersion !== registry.version) {
    entry = { registryVersion: registry.version, documents: new Map() };
    cache.set(registry, entry);
  }
  return entry;
}

/** Every published definition, built once per registry version. */
export function definitionsOf(registry: ResourceRegistry): Definitions {
  const entry = cached(registry);
  entry.definitions ??= allDefinitions(registry);
  return entry.definitions;
}

/** A group version's document as served (JSON text) and its hash (the index's `?hash=`, the ETag). */
export function openApiV3Text(
  registry: ResourceRegistry,
  group: string,
  version: string,
): { text: string; hash: string } {
  const entry = cached(registry);
  const key = gvPath(group, version);
  let document = entry.documents.get(key);
  if (!document) {
    const text = JSON.stringify(openApiV3Document(registry, group, version));
    const hash = createHash('sha512').update(text).digest('hex').slice(0, 128).toUpperCase();
    document = { text, hash };
    entry.documents.set(key, document);
  }
  return document;
}

export function openApiV3Index(registry: ResourceRegistry): JsonObject {
  const entry = cached(registry);
  if (entry.index) return entry.index;
  const paths: JsonObject = {};
  for (const { group, version } of groupVersions(registry)) {
    const { hash } = openApiV3Text(registry, group, version);
    paths[gvPath(group, version)] = { serverRelativeURL: `/openapi/v3/${gvPath(group, version)}?hash=${hash}` };
  }
  entry.index = { paths };
  return entry.index;
}

export const QUERY = (name: string): JsonObject => ({
  name,
  in: 'query',
  schema: { type: 'string', uniqueItems: true },
});

function patchOperation(type: ResourceType): JsonObject {
  return {
    operationId: `patch${type.kind}`,
    parameters: [
      QUERY('dryRun'),
      QUERY('fieldManager'),
      QUERY('fieldValidation'),
      { name: 'force', in: 'query', schema: { type: 'boolean' } },
    ],
    requestBody: {
      content: Object.fromEntries(
        [
          'application/apply-patch+yaml',
          'application/json-patch+json',
          'application/merge-patch+json',
          ...(type.builtin ? ['application/strategic-merge-patch+json'] : []),
        ].map((media) => [media, { schema: { type: 'object' } }]),
      ),
      required: true,
    },
    responses: { '200': { description: 'OK' }, '201': { description: 'Created' } },
    'x-kubernetes-action': 'patch',
    'x-kubernetes-group-version-kind': { group: type.group, version: type.version, kind: type.kind },
  };
}

function writeOperation(type: ResourceType, action: 'post' | 'put'): JsonObject {
  return {
    operationId: `${action === 'post' ? 'create' : 'replace'}${type.kind}`,
    parameters: [QUERY('dryRun'), QUERY('fieldManager'), QUERY('fieldValidation')],
    responses: { '200': { description: 'OK' } },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': { group: type.group, version: type.version, kind: type.kind },
  };
}

export function openApiV3Document(registry: ResourceRegistry, group: string, version: string): JsonObject {
  const paths: JsonObject = {};
  const types = registry.resourcesOf(group, version);
  const names = types.map(definitionName).filter((name): name is string => name !== undefined);
  const schemas = closure(definitionsOf(registry), names);
  for (const type of types) {
    const base = `/${gvPath(group, version)}${type.namespaced ? '/namespaces/{namespace}' : ''}/${type.plural}`;
    paths[base] = { post: writeOperation(type, 'post') };
    paths[`${base}/{name}`] = { put: writeOperation(type, 'put'), patch: patchOperation(type) };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths,
    components: { schemas: withRefs(schemas, '#/components/schemas/', true) },
  };
}
