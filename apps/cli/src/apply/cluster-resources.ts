/**
 * `apply --cluster`: the resources the policies match, read from the cluster of the kubeconfig
 * context (every namespace, or only `--namespace`), and the labels of their namespaces for
 * namespace selectors, as Kyverno's CLI fetches them. Loaded only with `--cluster` (the Kubernetes
 * client is slow to load).
 */
import { apiVersionOf, groupVersionPath, isNotFound, KubeHttpClient, loadKubeConfig } from '@edict/kube/client';
import { DiscoveryResolver } from '@edict/kube/discovery';
import { withAutogen, type Policy, type ResourceDescription } from '@edict/engine';
import { type KubeObject, parseKind } from '@edict/foundation';

export interface ClusterSource {
  readonly kubeconfig?: string;
  readonly context?: string;
  /** Only resources of this namespace (cluster-scoped kinds are then left out, as Kyverno does). */
  readonly namespace?: string;
  /** With `--resource`: the names of the resources to take (each must exist). */
  readonly names: readonly string[];
  /**
   * `--cluster-wide-resources`: the cluster-scoped resources the policies match, and with a namespace
   * the namespaced ones of that namespace as well (Kyverno then reads no other namespaced resources).
   */
  readonly clusterWide?: boolean;
  /** `--batch-size` (default 100): objects asked for per list request, the rest read page by page. */
  readonly batchSize?: number;
  /** `--concurrent` (default 1): list requests in flight at once. */
  readonly concurrent?: number;
  /** `--continue-on-error` (default true): a type that cannot be listed is left out; false: fail. */
  readonly continueOnError?: boolean;
}

export const DEFAULT_BATCH_SIZE = 100;

/** Upper bounds of `--batch-size` and `--concurrent`, so a flag cannot flood the API server. */
export const MAX_BATCH_SIZE = 10_000;
export const MAX_CONCURRENT = 32;

export interface ClusterResources {
  readonly resources: KubeObject[];
  /** Labels of the resources' namespaces, by namespace name. */
  readonly namespaceLabels: Record<string, Record<string, string>>;
  /** Objects of the admission policies' `paramKind`s, which their bindings' `paramRef`s select. */
  readonly params: KubeObject[];
  /** Objects the CEL policies read through `resource.get`/`resource.list` with literal arguments. */
  readonly contextResources: KubeObject[];
}

/** At most this many resource types are read for the CEL policies' `resource.get`/`resource.list` calls. */
export const MAX_CONTEXT_RESOURCE_TYPES = 16;

interface Listed {
  readonly apiVersion: string;
  readonly kind: string;
  readonly path: string;
}

/** A kind selector, or with `resource` a resource name (CEL policies' resource rules), to list. */
interface Wanted {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly resource?: string;
}

/**
 * `celPolicies`: Kyverno's CEL policies and Kubernetes' admission policies, whose
 * `matchConstraints.resourceRules` name the resources to read, as Kyverno's CLI reads them in cluster mode.
 */
export async function fetchClusterResources(
  policies: readonly Policy[],
  source: ClusterSource,
  celPolicies: readonly KubeObject[] = [],
): Promise<ClusterResources> {
  const config = loadKubeConfig({
    source: 'kubeconfig',
    ...(source.kubeconfig ? { kubeconfigPath: source.kubeconfig } : {}),
    ...(source.context ? { context: source.context } : {}),
  });
  const http = new KubeHttpClient(config);
  const kinds = matchedKinds(policies);
  const resolve = await new DiscoveryResolver(http, 0).resolver(kinds);
  const wanted = [...kinds.map(kindSelector), ...celResourceRules(celPolicies)];
  const limit = Math.min(Math.max(source.batchSize ?? DEFAULT_BATCH_SIZE, 1), MAX_BATCH_SIZE);
  const workers = Math.min(Math.max(source.concurrent ?? 1, 1), MAX_CONCURRENT);
  const listOne = async ({ apiVersion, kind, path }: Listed): Promise<KubeObject[]> => {
    const out: KubeObject[] = [];
    let next: string | undefined;
    do {
      const query: Record<string, string | number> = { limit };
      if (next) query.continue = next;
      const body = await http.json<{ items?: KubeObject[]; metadata?: { continue?: string } }>({ path, query });
      out.push(...(body.items ?? []).map((item) => ({ ...item, apiVersion, kind })));
      next = body.metadata?.continue || undefined;
    } while (next);
    return out;
  };
  const list = async (listed: readonly Listed[], strict = source.continueOnError === false) => {
    const results: KubeObject[][] = new Array<KubeObject[]>(listed.length);
    let index = 0;
    const work = async () => {
      while (index < listed.length) {
        const at = index++;
        try {
          results[at] = await listOne(listed[at]);
        } catch (error) {
          // a type that cannot be listed is left out, as Kyverno's CLI does (unless --continue-on-error=false)
          if (strict) throw new Error(`failed to list ${listed[at].path}: ${(error as Error).message}`);
          results[at] = [];
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(workers, listed.length) }, work));
    return results.flat();
  };
  let resources = source.clusterWide
    ? [
        ...(await list(listings(wanted, resolve, undefined, 'cluster'))),
        ...(source.namespace ? await list(listings(wanted, resolve, source.namespace)) : []),
      ]
    : await list(listings(wanted, resolve, source.namespace));
  if (source.names.length > 0) {
    const missing = source.names.filter((name) => !resources.some((r) => r.metadata?.name === name));
    if (missing.length > 0) throw new Error(`${missing.join(', ')} not found in cluster`);
    resources = resources.filter((r) => source.names.includes(r.metadata?.name ?? ''));
  }
  const params = await list(listings(paramKinds(celPolicies), resolve, undefined), false);
  const contextResources = await list(listings(contextReads(celPolicies), resolve, undefined), false);
  return { resources, namespaceLabels: await labelsOfNamespaces(http, resources), params, contextResources };
}

function kindSelector(selector: string): Wanted {
  const { group, version, kind, subresource } = parseKind(selector);
  return { group, version, kind: (subresource ?? '') === '' ? kind : '' };
}

type ResourceRule = { apiGroups?: string[]; apiVersions?: string[]; resources?: string[] };

/** The resources of the policies' `matchConstraints.resourceRules` (subresources and `*` resources left out). */
function celResourceRules(celPolicies: readonly KubeObject[]): Wanted[] {
  const out: Wanted[] = [];
  for (const policy of celPolicies) {
    const spec = (policy as { spec?: { matchConstraints?: { resourceRules?: ResourceRule[] } } }).spec;
    for (const rule of spec?.matchConstraints?.resourceRules ?? []) {
      for (const group of rule.apiGroups ?? [])
        for (const version of rule.apiVersions ?? [])
          for (const resource of rule.resources ?? []) {
            if (resource === '*' || resource.includes('/')) continue;
            out.push({ group, version, kind: '*', resource });
          }
    }
  }
  return out;
}

/** The admission policies' `paramKind`s. */
function paramKinds(celPolicies: readonly KubeObject[]): Wanted[] {
  const out: Wanted[] = [];
  for (const policy of celPolicies) {
    const paramKind = (policy as { spec?: { paramKind?: { apiVersion?: string; kind?: string } } }).spec?.paramKind;
    if (!paramKind?.apiVersion || !paramKind.kind) continue;
    const [group, version] = paramKind.apiVersion.includes('/')
      ? paramKind.apiVersion.split('/', 2)
      : ['', paramKind.apiVersion];
    out.push({ group: group ?? '', version: version ?? '', kind: paramKind.kind });
  }
  return out;
}

const RESOURCE_CALL = /resource\.(?:get|list)\(\s*["']([^"']{1,253})["']\s*,\s*["']([^"']{1,253})["']/g;

/**
 * The resource types the CEL policies read with `resource.get`/`resource.list` and literal apiVersion
 * and resource arguments: Kyverno's CLI reads those from the cluster as the expression runs; Edict's
 * evaluation is synchronous, so it reads these types beforehand (at most MAX_CONTEXT_RESOURCE_TYPES).
 */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(stringsOf);
  return [];
}

function contextReads(celPolicies: readonly KubeObject[]): Wanted[] {
  const seen = new Map<string, Wanted>();
  for (const policy of celPolicies) {
    for (const match of stringsOf(policy).flatMap((text) => [...text.matchAll(RESOURCE_CALL)])) {
      const [apiVersion = '', resource = ''] = [match[1], match[2]];
      const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
      seen.set(`${apiVersion} ${resource}`, { group: group ?? '', version: version ?? '', kind: '*', resource });
    }
  }
  if (seen.size > MAX_CONTEXT_RESOURCE_TYPES)
    throw new Error(
      `the policies read ${seen.size} resource types through resource.get/resource.list: at most ${MAX_CONTEXT_RESOURCE_TYPES} are read from the cluster`,
    );
  return [...seen.values()];
}

/** The kinds the policies' rules (with the autogen ones) match. */
function matchedKinds(policies: readonly Policy[]): string[] {
  const kinds = new Set<string>();
  for (const policy of policies) {
    for (const rule of withAutogen(policy).spec.rules ?? []) {
      const filters: (ResourceDescription | undefined)[] = [
        rule.match?.resources,
        ...(rule.match?.any ?? []).map((filter) => filter.resources),
        ...(rule.match?.all ?? []).map((filter) => filter.resources),
      ];
      for (const filter of filters) for (const kind of filter?.kinds ?? []) kinds.add(kind);
    }
  }
  return [...kinds].sort();
}

/** One list request per served resource (its first version discovery names), subresources left out. */
function listings(
  wanted: readonly Wanted[],
  resolve: Awaited<ReturnType<DiscoveryResolver['resolver']>>,
  namespace: string | undefined,
  only?: 'cluster',
): Listed[] {
  const seen = new Set<string>();
  const out: Listed[] = [];
  for (const selector of wanted) {
    if (selector.kind === '') continue;
    const resolved = resolve({
      group: selector.group,
      version: selector.version,
      kind: selector.kind,
      subresource: '',
    });
    for (const resource of resolved ?? []) {
      if (selector.resource !== undefined && resource.resource !== selector.resource) continue;
      const key = `${resource.group}/${resource.resource}`;
      if (seen.has(key) || (namespace && !resource.namespaced) || (only === 'cluster' && resource.namespaced)) continue;
      seen.add(key);
      const apiVersion = apiVersionOf(resource.group, resource.version);
      const base = groupVersionPath(apiVersion);
      const scope = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
      out.push({ apiVersion, kind: resource.kind, path: `${base}${scope}/${resource.resource}` });
    }
  }
  return out;
}

async function labelsOfNamespaces(
  http: KubeHttpClient,
  resources: readonly KubeObject[],
): Promise<Record<string, Record<string, string>>> {
  const labels: Record<string, Record<string, string>> = {};
  const namespaces = new Set(resources.map((r) => r.metadata?.namespace).filter((ns): ns is string => !!ns));
  for (const namespace of namespaces) {
    try {
      const object = await http.json<KubeObject>({ path: `/api/v1/namespaces/${encodeURIComponent(namespace)}` });
      labels[namespace] = (object.metadata?.labels as Record<string, string> | undefined) ?? {};
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  return labels;
}
