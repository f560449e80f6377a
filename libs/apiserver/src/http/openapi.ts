/**
 * Minimal OpenAPI v3 documents: one per group version, with a PATCH operation per resource that
 * carries `x-kubernetes-group-version-kind` and the `fieldValidation` query parameter. That is what
 * kubectl reads to decide that the server validates fields itself (so `apply`, `create` and
 * `replace` skip client-side schema validation). No schemas are published, so kubectl computes
 * apply patches from its compiled-in types (built-ins) or as JSON merge patches (custom resources).
 */
import { createHash } from 'node:crypto';
import type { JsonObject } from '@edict/engine';
import type { ResourceRegistry } from '../registry/registry';
import { apiVersionOf, type ResourceType } from '../registry/resource-type';

function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

function groupVersions(registry: ResourceRegistry): Array<{ group: string; version: string }> {
  const seen = new Map<string, { group: string; version: string }>();
  for (const type of registry.all()) seen.set(apiVersionOf(type), { group: type.group, version: type.version });
  return [...seen.values()];
}

export function openApiV3Index(registry: ResourceRegistry): JsonObject {
  const paths: JsonObject = {};
  for (const { group, version } of groupVersions(registry)) {
    const doc = JSON.stringify(openApiV3Document(registry, group, version));
    const hash = createHash('sha512').update(doc).digest('hex').slice(0, 32).toUpperCase();
    paths[gvPath(group, version)] = { serverRelativeURL: `/openapi/v3/${gvPath(group, version)}?hash=${hash}` };
  }
  return { paths };
}

const QUERY = (name: string): JsonObject => ({ name, in: 'query', schema: { type: 'string', uniqueItems: true } });

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
  for (const type of registry.resourcesOf(group, version)) {
    const base = `/${gvPath(group, version)}${type.namespaced ? '/namespaces/{namespace}' : ''}/${type.plural}`;
    paths[base] = { post: writeOperation(type, 'post') };
    paths[`${base}/{name}`] = { put: writeOperation(type, 'put'), patch: patchOperation(type) };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths,
    components: { schemas: {} },
  };
}
