/**
 * What a namespaced Policy may read through context entries: its own namespace only (Kyverno's fixes
 * for namespaced policies reading other namespaces through `configMap` and `apiCall.urlPath`). A
 * ClusterPolicy may read anything the controller's identity may. Pure checks; they throw
 * ContextAccessError, which the engine turns into the rule's error.
 */
import type { LoaderScope } from '@edict/engine';

export class ContextAccessError extends Error {
  override readonly name = 'ContextAccessError';
}

/** Refuses a namespaced Policy's ConfigMap lookup outside its namespace. */
export function checkConfigMapScope(namespace: string, name: string, scope: LoaderScope): void {
  const own = scope.policyNamespace;
  if (own === undefined || namespace === own) return;
  throw new ContextAccessError(
    `configMap ${namespace}/${name}: a Policy in namespace "${own}" may read ConfigMaps of its own namespace only, not of "${namespace}"`,
  );
}

/**
 * The API server path a urlPath names: checks it is a plain absolute path, and tells the namespace
 * it addresses (undefined for cluster-scoped paths such as `/api/v1/nodes` or `/apis/x/v1/things`).
 */
export function apiPathNamespace(urlPath: string): string | undefined {
  if (!urlPath.startsWith('/') || urlPath.startsWith('//')) {
    throw new ContextAccessError(
      `apiCall urlPath ${quote(urlPath)} must be an absolute API server path (/api/... or /apis/...)`,
    );
  }
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\s\\#\u0000-\u001f\u007f]/.test(urlPath)) {
    throw new ContextAccessError(`apiCall urlPath ${quote(urlPath)} holds whitespace, control characters, '\\' or '#'`);
  }
  const path = urlPath.split('?', 1)[0] ?? '';
  const segments = path.slice(1).split('/');
  // A trailing slash is harmless; anything else that a server might normalise differently is not.
  if (segments.length > 1 && segments.at(-1) === '') segments.pop();
  for (const segment of segments) {
    if (segment === '' || segment === '.' || segment === '..' || segment.includes('%')) {
      throw new ContextAccessError(
        `apiCall urlPath ${quote(urlPath)}: empty, '.', '..' or percent-encoded path segments are not accepted`,
      );
    }
  }
  // /api/v1/namespaces/<ns>/... and /apis/<group>/<version>/namespaces/<ns>/...
  const at = segments[0] === 'api' ? 2 : segments[0] === 'apis' ? 3 : -1;
  if (at < 0) return undefined;
  return segments[at] === 'namespaces' && segments[at + 1] !== undefined ? segments[at + 1] : undefined;
}

/** Refuses a namespaced Policy's apiCall to a cluster-scoped path or another namespace's. */
export function checkApiPathScope(urlPath: string, scope: LoaderScope): void {
  const namespace = apiPathNamespace(urlPath);
  const own = scope.policyNamespace;
  if (own === undefined || namespace === own) return;
  const target = namespace === undefined ? 'a cluster-scoped path' : `namespace "${namespace}"`;
  throw new ContextAccessError(
    `apiCall urlPath ${quote(urlPath)}: a Policy in namespace "${own}" may call paths in its own namespace only (/api/v1/namespaces/${own}/... or /apis/<group>/<version>/namespaces/${own}/...), not ${target}`,
  );
}

function quote(text: string): string {
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
}
