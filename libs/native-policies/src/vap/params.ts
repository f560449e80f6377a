/**
 * The parameter objects of a binding, collected as kube-apiserver collects them: by name or by
 * label selector, in paramRef.namespace, else (for a namespaced paramKind) in the request's
 * namespace; none found is an error when parameterNotFoundAction is Deny (the default).
 */
import { isObject, matchesLabelSelector, type JsonObject, type LabelSelector } from '@edict/foundation';
import type { BindingSpec, ParamKind } from './spec';

/** Each param is a call of the policy: Edict bounds how many one binding may make (kube does not). */
export const MAX_PARAMS_PER_BINDING = 256;

/** Where parameter objects come from: the cluster, or the files a CLI run was given. */
export interface ParamSource {
  /** Whether `kind` is namespaced; undefined when the source cannot tell (offline files). */
  namespaced(paramKind: ParamKind): boolean | undefined | Promise<boolean | undefined>;
  get(
    paramKind: ParamKind,
    namespace: string | undefined,
    name: string,
  ): JsonObject | undefined | Promise<JsonObject | undefined>;
  list(
    paramKind: ParamKind,
    namespace: string | undefined,
    selector: LabelSelector,
  ): JsonObject[] | Promise<JsonObject[]>;
}

/** The binding's params: [null] when the policy or binding takes none (one evaluation, no params). */
export async function collectParams(
  paramKind: ParamKind | undefined,
  binding: Pick<BindingSpec, 'paramRef'>,
  requestNamespace: string,
  source: ParamSource | undefined,
): Promise<(JsonObject | null)[]> {
  const ref = binding.paramRef;
  if (!paramKind || !ref) return [null];
  if (!source) throw new Error(`paramKind kind \`${describeKind(paramKind)}\` not known`);
  const namespaced = await source.namespaced(paramKind);
  let namespace: string | undefined;
  if (namespaced === true) {
    namespace = ref.namespace ?? requestNamespace;
    if (!namespace) {
      throw new Error('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
    }
  } else if (namespaced === false && ref.namespace) {
    throw new Error('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
  } else if (namespaced === undefined) {
    namespace = ref.namespace;
  }
  let params: JsonObject[];
  if (ref.name !== undefined) {
    if (ref.selector) throw new Error('paramRef.name and paramRef.selector are mutually exclusive');
    const param = await source.get(paramKind, namespace, ref.name);
    params = param ? [param] : [];
  } else if (ref.selector) {
    params = await source.list(paramKind, namespace, ref.selector);
  } else {
    throw new Error('one of name or selector must be provided');
  }
  if (params.length > MAX_PARAMS_PER_BINDING) {
    throw new Error(
      `paramRef selects ${params.length} objects, more than the ${MAX_PARAMS_PER_BINDING} a binding may evaluate`,
    );
  }
  if (params.length === 0 && ref.parameterNotFoundAction === 'Deny') {
    throw new Error('no params found for policy binding with `Deny` parameterNotFoundAction');
  }
  return params;
}

function describeKind(kind: ParamKind): string {
  const slash = kind.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : kind.apiVersion.slice(0, slash);
  const version = slash < 0 ? kind.apiVersion : kind.apiVersion.slice(slash + 1);
  return `${group}/${version}, Kind=${kind.kind}`;
}

/**
 * Params from a list of objects (a CLI run's parameter files). Scope is unknown offline: a
 * namespace filters only objects that name one.
 */
export function paramsFromObjects(objects: readonly JsonObject[]): ParamSource {
  const ofKind = (kind: ParamKind, namespace: string | undefined) =>
    objects.filter((object) => {
      if (object.apiVersion !== kind.apiVersion || object.kind !== kind.kind) return false;
      const own = metadataOf(object).namespace;
      return namespace === undefined || typeof own !== 'string' || own === '' || own === namespace;
    });
  return {
    namespaced: () => undefined,
    get: (kind, namespace, name) => ofKind(kind, namespace).find((object) => metadataOf(object).name === name),
    list: (kind, namespace, selector) =>
      ofKind(kind, namespace).filter((object) => {
        const labels = metadataOf(object).labels;
        return matchesLabelSelector(selector, isObject(labels) ? (labels as Record<string, string>) : {});
      }),
  };
}

function metadataOf(object: JsonObject): JsonObject {
  return isObject(object.metadata) ? object.metadata : {};
}
