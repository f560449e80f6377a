/** The discovery documents (`/api`, `/apis`, group and group-version resource lists) from the registry. */
import { createHash } from 'node:crypto';
import type { JsonObject } from '@edict/foundation';
import type { ResourceRegistry } from '../registry/registry';
import type { ResourceType } from '../registry/resource-type';

/** The version this server claims to be; kubectl only warns when far from its own. */
export const SERVER_VERSION: JsonObject = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0-edict',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2025-01-01T00:00:00Z',
  goVersion: 'go1.23.0',
  compiler: 'gc',
  platform: 'linux/amd64',
};

export function apiVersions(serverAddress: string): JsonObject {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

/** `GET /`: the paths this server serves, as kube's root document lists them (`kubectl proxy` probes it). */
export function rootPaths(registry: ResourceRegistry): JsonObject {
  const groups = registry
    .groups()
    .flatMap(({ group, versions }) => [`/apis/${group}`, ...versions.map((version) => `/apis/${group}/${version}`)]);
  const fixed = ['/api', '/api/v1', '/apis', '/healthz', '/livez', '/openapi/v3', '/readyz', '/version'];
  return { paths: [...fixed, ...groups].sort() };
}

function groupDocument(group: string, versions: readonly string[]): JsonObject {
  const entries = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions: entries, preferredVersion: entries[0]! };
}

export function apiGroupList(registry: ResourceRegistry): JsonObject {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: registry.groups().map(({ group, versions }) => groupDocument(group, versions)),
  };
}

export function apiGroup(registry: ResourceRegistry, group: string): JsonObject | undefined {
  const found = registry.groups().find((entry) => entry.group === group);
  return found ? { kind: 'APIGroup', apiVersion: 'v1', ...groupDocument(group, found.versions) } : undefined;
}

function storageVersionHash(type: ResourceType): string {
  return createHash('sha256').update(`${type.group}/${type.version}/${type.kind}`).digest('base64').slice(0, 11);
}

/** What kube's discovery says of each subresource: its kind (and group/version when not the parent's). */
const SUBRESOURCE_DISCOVERY: Readonly<
  Record<string, { group?: string; version?: string; kind?: string; verbs: readonly string[] }>
> = {
  status: { verbs: ['get', 'patch', 'update'] },
  scale: { group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] },
  ephemeralcontainers: { verbs: ['get', 'patch', 'update'] },
  approval: { verbs: ['get', 'patch', 'update'] },
  resize: { verbs: ['get', 'patch', 'update'] },
  exec: { kind: 'PodExecOptions', verbs: ['create', 'get'] },
  attach: { kind: 'PodAttachOptions', verbs: ['create', 'get'] },
  portforward: { kind: 'PodPortForwardOptions', verbs: ['create', 'get'] },
  binding: { kind: 'Binding', verbs: ['create'] },
  proxy: { kind: 'PodProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] },
  eviction: { group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] },
  log: { verbs: ['get'] },
  token: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest', verbs: ['create'] },
};

function resourceEntries(type: ResourceType): JsonObject[] {
  const main: JsonObject = {
    name: type.plural,
    singularName: type.singular,
    namespaced: type.namespaced,
    kind: type.kind,
    verbs: [...type.verbs],
    ...(type.shortNames.length > 0 ? { shortNames: [...type.shortNames] } : {}),
    ...(type.categories.length > 0 ? { categories: [...type.categories] } : {}),
    storageVersionHash: storageVersionHash(type),
  };
  const subresources = type.subresources.map((sub) => {
    const served = SUBRESOURCE_DISCOVERY[sub];
    return {
      name: `${type.plural}/${sub}`,
      singularName: '',
      namespaced: type.namespaced,
      ...(served?.group !== undefined ? { group: served.group, version: served.version } : {}),
      kind: served?.kind ?? type.kind,
      verbs: [...(served?.verbs ?? ['get', 'patch', 'update'])],
    };
  });
  return [main, ...subresources];
}

export function apiResourceList(registry: ResourceRegistry, group: string, version: string): JsonObject {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources: registry.resourcesOf(group, version).flatMap(resourceEntries),
  };
}
