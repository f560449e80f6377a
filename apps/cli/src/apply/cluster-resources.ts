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
}

export interface ClusterResources {
  readonly resources: KubeObject[];
  /** Labels of the resources' namespaces, by namespace name. */
  readonly namespaceLabels: Record<string, Record<string, string>>;
}

interface Listed {
  readonly apiVersion: string;
  readonly kind: string;
  readonly path: string;
}

export async function fetchClusterResources(
  policies: readonly Policy[],
  source: ClusterSource,
): Promise<ClusterResources> {
  const config = loadKubeConfig({
    source: 'kubeconfig',
    ...(source.kubeconfig ? { kubeconfigPath: source.kubeconfig } : {}),
    ...(source.context ? { context: source.context } : {}),
  });
  const http = new KubeHttpClient(config);
  const kinds = matchedKinds(policies);
  const resolve = await new DiscoveryResolver(http, 0).resolver(kinds);
  let resources: KubeObject[] = [];
  for (const { apiVersion, kind, path } of listings(kinds, resolve, source.namespace)) {
    try {
      const list = await http.json<{ items?: KubeObject[] }>({ path });
      resources.push(...(list.items ?? []).map((item) => ({ ...item, apiVersion, kind })));
    } catch {
      continue; // a type that cannot be listed is left out, as Kyverno's CLI does
    }
  }
  if (source.names.length > 0) {
    const missing = source.names.filter((name) => !resources.some((r) => r.metadata?.name === name));
    if (missing.length > 0) throw new Error(`${missing.join(', ')} not found in cluster`);
    resources = resources.filter((r) => source.names.includes(r.metadata?.name ?? ''));
  }
  return { resources, namespaceLabels: await labelsOfNamespaces(http, resources) };
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
  kinds: readonly string[],
  resolve: Awaited<ReturnType<DiscoveryResolver['resolver']>>,
  namespace: string | undefined,
): Listed[] {
  const seen = new Set<string>();
  const out: Listed[] = [];
  for (const selector of kinds) {
    const parsed = parseKind(selector);
    if (parsed.kind === '' || (parsed.subresource ?? '') !== '') continue;
    const resolved = resolve({ group: parsed.group, version: parsed.version, kind: parsed.kind, subresource: '' });
    for (const resource of resolved ?? []) {
      const key = `${resource.group}/${resource.resource}`;
      if (seen.has(key) || (namespace && !resource.namespaced)) continue;
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
