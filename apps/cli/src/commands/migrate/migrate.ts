/**
 * `kyverno migrate`: re-stores every object of a CRD so the API server writes it in the CRD's storage
 * version, then records that version as the only one stored (`status.storedVersions`). Through
 * Edict's kube client, against the cluster of the kubeconfig. Loaded only when the command runs (the
 * kube client is slow to load).
 */
import { KubeHttpClient, loadKubeConfig } from '@edict/kube/client';
import { isObject, type JsonObject, type KubeObject } from '@edict/foundation';

export interface MigrateOptions {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly resources: readonly string[];
}

/** Objects listed per page, so a large CRD is never held in one answer. */
const PAGE_SIZE = 500;

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** Migrates each CRD in turn, printing Kyverno's progress lines; the first failure stops it (thrown). */
export async function migrate(options: MigrateOptions, out: (line: string) => void): Promise<void> {
  if (options.resources.length === 0) return;
  const http = new KubeHttpClient(
    loadKubeConfig({
      source: 'kubeconfig',
      ...(options.kubeconfig ? { kubeconfigPath: options.kubeconfig } : {}),
      ...(options.context ? { context: options.context } : {}),
    }),
  );
  for (const resource of options.resources) {
    out(`migrating resource: ${resource} ...`);
    const crd = await http.json<JsonObject>({ path: `${CRDS}/${encodeURIComponent(resource)}` });
    await migrateCrd(http, crd, out);
  }
}

async function migrateCrd(http: KubeHttpClient, crd: JsonObject, out: (line: string) => void): Promise<void> {
  const spec = isObject(crd.spec) ? crd.spec : {};
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObject) : [];
  const stored = versions.filter((version) => version.storage === true).pop();
  if (!stored || typeof stored.name !== 'string') throw new Error('stored version not found');
  out(`stored version: ${stored.name}`);
  const status = isObject(crd.status) ? crd.status : {};
  const storedVersions = Array.isArray(status.storedVersions) ? status.storedVersions : [];
  if (storedVersions.length === 1 && storedVersions[0] === stored.name) {
    out('stored version is already up to date, nothing to do');
    return;
  }
  const group = String(spec.group ?? '');
  const plural = String(isObject(spec.names) ? spec.names.plural : '');
  const kind = String(isObject(spec.names) ? spec.names.kind : '');
  const namespaced = spec.scope === 'Namespaced';
  const base = `/apis/${encodeURIComponent(group)}/${encodeURIComponent(stored.name)}`;
  out('migrating resources...');
  let next: string | undefined;
  do {
    const page: { items?: KubeObject[]; metadata?: { continue?: string } } = await http.json({
      path: `${base}/${encodeURIComponent(plural)}`,
      query: { limit: PAGE_SIZE, ...(next ? { continue: next } : {}) },
    });
    for (const item of page.items ?? []) {
      const name = encodeURIComponent(item.metadata?.name ?? '');
      const namespace = item.metadata?.namespace;
      const path =
        namespaced && namespace
          ? `${base}/namespaces/${encodeURIComponent(namespace)}/${encodeURIComponent(plural)}/${name}`
          : `${base}/${encodeURIComponent(plural)}/${name}`;
      await http.json({ method: 'PUT', path, body: { ...item, apiVersion: `${group}/${stored.name}`, kind } });
    }
    next = page.metadata?.continue || undefined;
  } while (next);
  out('patching status...');
  const name = encodeURIComponent(String(isObject(crd.metadata) ? crd.metadata.name : ''));
  await http.json({
    method: 'PUT',
    path: `${CRDS}/${name}/status`,
    body: { ...crd, status: { ...status, storedVersions: [stored.name] } },
  });
}
