/**
 * The OpenAPI v2 document (`/openapi/v2`): every definition (built-ins and served custom resource
 * versions) and the write operations of every resource with their `x-kubernetes-group-version-kind`
 * and `fieldValidation` parameter. kubectl asks for it in protobuf (gnostic's `openapi.v2.Document`,
 * see `openapi-v2-protobuf.ts`) when it validates a kind the v3 documents do not name, e.g. to
 * find that a kind has no CRD ("no matches for kind").
 */
import type { JsonObject } from '@edict/foundation';
import type { ResourceRegistry } from '../registry/registry';
import type { ResourceType } from '../registry/resource-type';
import { definitionsOf, gvPath } from './openapi';
import { withRefs } from './openapi-schemas';
import { encodeOpenApiV2 } from './openapi-v2-protobuf';

const QUERY = (name: string): JsonObject => ({ name, in: 'query', type: 'string', uniqueItems: true });

function operation(type: ResourceType, verb: string, action: string): JsonObject {
  return {
    operationId: `${verb}${type.kind}`,
    parameters: [QUERY('dryRun'), QUERY('fieldManager'), QUERY('fieldValidation')],
    responses: { '200': { description: 'OK' } },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': { group: type.group, kind: type.kind, version: type.version },
  };
}

export function openApiV2Document(registry: ResourceRegistry): JsonObject {
  const paths: JsonObject = {};
  for (const type of registry.all()) {
    const base = `/${gvPath(type.group, type.version)}${type.namespaced ? '/namespaces/{namespace}' : ''}/${type.plural}`;
    paths[base] = { post: operation(type, 'create', 'post') };
    paths[`${base}/{name}`] = { put: operation(type, 'replace', 'put'), patch: operation(type, 'patch', 'patch') };
  }
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths,
    definitions: withRefs(definitionsOf(registry), '#/definitions/', false) as JsonObject,
  };
}

const cache = new WeakMap<ResourceRegistry, { version: number; json?: string; protobuf?: Buffer }>();

function entry(registry: ResourceRegistry): { version: number; json?: string; protobuf?: Buffer } {
  let cached = cache.get(registry);
  if (!cached || cached.version !== registry.version) {
    cached = { version: registry.version };
    cache.set(registry, cached);
  }
  return cached;
}

/** The document as JSON text, built once per registry version. */
export function openApiV2Json(registry: ResourceRegistry): string {
  const cached = entry(registry);
  cached.json ??= JSON.stringify(openApiV2Document(registry));
  return cached.json;
}

/** The document in protobuf, built once per registry version. */
export function openApiV2Protobuf(registry: ResourceRegistry): Buffer {
  const cached = entry(registry);
  cached.protobuf ??= encodeOpenApiV2(openApiV2Document(registry));
  return cached.protobuf;
}
