import type { JsonObject, KubeObject } from '@edict/foundation';
import type { LoaderScope, ResourceLoader } from '../../core/loaders';
import type { CelValidation } from '../../policy/types';

/**
 * The parameter objects of a validate.cel rule, as Kyverno collects them: by name or by label
 * selector, in `paramRef.namespace`, else (for a namespaced paramKind) in the request's namespace.
 * A namespaced Policy reads parameters of its own namespace only, as its context entries do.
 * Returns [] when none exist and parameterNotFoundAction is Allow; throws for every other miss.
 */
export async function loadParams(
  cel: CelValidation,
  requestNamespace: string,
  resources: ResourceLoader | undefined,
  scope: LoaderScope,
): Promise<KubeObject[]> {
  const { apiVersion = '', kind = '' } = cel.paramKind ?? {};
  const ref = cel.paramRef ?? {};
  if (!resources) throw new Error('parameter resources cannot be read without a cluster');
  const namespaced = await resources.namespaced(apiVersion, kind);
  if (namespaced === undefined) {
    throw new Error(
      `failed to check if resource is namespaced or not (the server does not serve ${kind} in ${apiVersion})`,
    );
  }
  let namespace: string | undefined;
  if (namespaced) {
    namespace = ref.namespace || requestNamespace;
    if (!namespace) throw new Error("can't use namespaced paramRef to match cluster-scoped resources");
  } else if (ref.namespace) {
    throw new Error('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
  }
  const own = scope.policyNamespace;
  if (own !== undefined && namespace !== own) {
    const where = namespace === undefined ? 'cluster-scoped parameters' : `parameters of namespace "${namespace}"`;
    throw new Error(`a Policy in namespace "${own}" may read parameters of its own namespace only, not ${where}`);
  }
  let params: KubeObject[] = [];
  if (ref.name) {
    const param = await resources.get(apiVersion, kind, namespace, ref.name);
    if (param) params = [param];
  } else if (ref.selector) {
    params = await resources.list(apiVersion, kind, namespace, ref.selector as JsonObject);
  }
  if (params.length === 0 && ref.parameterNotFoundAction !== 'Allow') {
    const which = ref.name
      ? `${kind} ${namespace ? `${namespace}/` : ''}${ref.name}`
      : `${kind} matching paramRef.selector`;
    throw new Error(`no params found: ${which} does not exist`);
  }
  return params;
}
