import type { Environment } from '@marcbachmann/cel-js';
import { isObject } from '@edict/foundation';
import { toCelObject } from './kube-values';
import { celError } from '../libraries/errors';
import { missingPort, type KyvernoCalls } from './calls';
import type { CelResourcePort } from './ports';
import { celToJson, stringMap } from './values';

export const RESOURCE_TYPE = 'resource.Context';
export const GVR_TYPE = 'schema.GroupVersionResource';

/** The value of `resource`: the port and, for a namespaced policy, the namespace it is confined to. */
export class CelResourceContext {
  constructor(
    readonly calls: KyvernoCalls,
    readonly port: CelResourcePort | undefined,
  ) {}
}

/** What `resource.ToGVR(apiVersion, kind)` answers. */
export class CelGroupVersionResource {
  constructor(
    readonly group: string,
    readonly version: string,
    readonly resource: string,
  ) {}

  get apiVersion(): string {
    return this.group ? `${this.group}/${this.version}` : this.version;
  }
}

/**
 * Kyverno's resource library. A cluster-wide policy names the namespace:
 * `resource.Get(apiVersion, resource, namespace, name)`, `resource.List(apiVersion, resource,
 * namespace[, labels])`, `resource.Post(apiVersion, resource[, namespace], object)`; a namespaced
 * policy does not (its own namespace is used): `resource.Get(apiVersion, resource, name)`,
 * `resource.List(apiVersion, resource[, labels])`, `resource.Post(apiVersion, resource, object)`.
 * Both have `resource.ToGVR(apiVersion, kind)` and overloads taking its result, and camelCase names.
 * A Get of a missing object is null.
 */
export function registerResource(env: Environment, namespaced: boolean): void {
  env.registerType(RESOURCE_TYPE, CelResourceContext);
  env.registerType(GVR_TYPE, CelGroupVersionResource);
  const fn = (signature: string, handler: (...args: never[]) => unknown): void => {
    env.registerFunction(`${RESOURCE_TYPE}.${signature}`, handler as (...args: unknown[]) => unknown);
  };
  for (const [get, list, post, toGVR] of [
    ['Get', 'List', 'Post', 'ToGVR'],
    ['get', 'list', 'post', 'toGVR'],
  ] as const) {
    const map = 'map<string, string>';
    const object = 'map<string, dyn>';
    fn(`${toGVR}(string, string): ${GVR_TYPE}`, (r: CelResourceContext, apiVersion: string, kind: string) =>
      gvrOf(r, apiVersion, kind),
    );
    if (namespaced) {
      fn(`${get}(string, string, string): ${object}`, (r: CelResourceContext, v: string, res: string, name: string) =>
        getOne(r, v, res, own(r), name),
      );
      fn(`${get}(${GVR_TYPE}, string): ${object}`, (r: CelResourceContext, g: CelGroupVersionResource, name: string) =>
        getOne(r, g.apiVersion, g.resource, own(r), name),
      );
      fn(`${list}(string, string): ${object}`, (r: CelResourceContext, v: string, res: string) =>
        listAll(r, v, res, own(r), undefined),
      );
      fn(
        `${list}(string, string, ${map}): ${object}`,
        (r: CelResourceContext, v: string, res: string, labels: unknown) => listAll(r, v, res, own(r), labels),
      );
      fn(`${list}(${GVR_TYPE}): ${object}`, (r: CelResourceContext, g: CelGroupVersionResource) =>
        listAll(r, g.apiVersion, g.resource, own(r), undefined),
      );
      fn(
        `${list}(${GVR_TYPE}, ${map}): ${object}`,
        (r: CelResourceContext, g: CelGroupVersionResource, labels: unknown) =>
          listAll(r, g.apiVersion, g.resource, own(r), labels),
      );
      fn(
        `${post}(string, string, ${object}): ${object}`,
        (r: CelResourceContext, v: string, res: string, data: unknown) => create(r, v, res, own(r), data),
      );
    } else {
      fn(
        `${get}(string, string, string, string): ${object}`,
        (r: CelResourceContext, v: string, res: string, ns: string, name: string) => getOne(r, v, res, ns, name),
      );
      fn(
        `${get}(${GVR_TYPE}, string, string): ${object}`,
        (r: CelResourceContext, g: CelGroupVersionResource, ns: string, name: string) =>
          getOne(r, g.apiVersion, g.resource, ns, name),
      );
      fn(`${list}(string, string, string): ${object}`, (r: CelResourceContext, v: string, res: string, ns: string) =>
        listAll(r, v, res, ns, undefined),
      );
      fn(
        `${list}(string, string, string, ${map}): ${object}`,
        (r: CelResourceContext, v: string, res: string, ns: string, labels: unknown) => listAll(r, v, res, ns, labels),
      );
      fn(`${list}(${GVR_TYPE}, string): ${object}`, (r: CelResourceContext, g: CelGroupVersionResource, ns: string) =>
        listAll(r, g.apiVersion, g.resource, ns, undefined),
      );
      fn(
        `${list}(${GVR_TYPE}, string, ${map}): ${object}`,
        (r: CelResourceContext, g: CelGroupVersionResource, ns: string, labels: unknown) =>
          listAll(r, g.apiVersion, g.resource, ns, labels),
      );
      fn(
        `${post}(string, string, string, ${object}): ${object}`,
        (r: CelResourceContext, v: string, res: string, ns: string, data: unknown) => create(r, v, res, ns, data),
      );
      fn(
        `${post}(string, string, ${object}): ${object}`,
        (r: CelResourceContext, v: string, res: string, data: unknown) => create(r, v, res, '', data),
      );
    }
  }
}

/** A namespaced policy's own namespace; an activation without one fails closed. */
function own(r: CelResourceContext): string {
  const namespace = r.calls.scope.policyNamespace;
  if (!namespace) throw celError('resource: a namespaced policy has no namespace to read from');
  return namespace;
}

/**
 * A namespaced policy reaches its own namespace only: the cluster-wide overloads it cannot name
 * are not declared, and a namespace it could pass anyway (an activation given the wrong scope) is
 * refused rather than answered empty.
 */
function confine(r: CelResourceContext, namespace: string, verb: string): void {
  const own = r.calls.scope.policyNamespace;
  if (own && namespace !== own) {
    throw celError(`failed to ${verb} resource: a policy in namespace ${own} cannot reach namespace "${namespace}"`);
  }
}

function port(r: CelResourceContext, what: string): CelResourcePort {
  if (!r.port) throw missingPort('resource', `cannot ${what}`);
  return r.port;
}

function getOne(r: CelResourceContext, apiVersion: string, resource: string, namespace: string, name: string): unknown {
  const resources = port(r, `get ${resource} ${name}`);
  confine(r, namespace, 'get');
  const answer = r.calls.run(
    'failed to get resource',
    (call) => resources.get({ apiVersion, resource, namespace, name }, call),
    undefined,
    `resource.get:${JSON.stringify([apiVersion, resource, namespace, name])}`,
  );
  const convert = (object: unknown): unknown => (object == null ? null : toCelObject(object, 'resource.Get'));
  return answer instanceof Promise ? answer.then(convert) : convert(answer);
}

function listAll(
  r: CelResourceContext,
  apiVersion: string,
  resource: string,
  namespace: string,
  labels: unknown,
): unknown {
  const resources = port(r, `list ${resource}`);
  confine(r, namespace, 'list');
  const selector = labels === undefined ? undefined : stringMap(labels, 'resource.List');
  const answer = r.calls.run(
    'failed to list resource',
    (call) => resources.list({ apiVersion, resource, namespace, ...(selector ? { labels: selector } : {}) }, call),
    undefined,
    `resource.list:${JSON.stringify([apiVersion, resource, namespace, selector ?? null])}`,
  );
  const convert = (list: unknown): unknown => toCelObject(list, 'resource.List');
  return answer instanceof Promise ? answer.then(convert) : convert(answer);
}

function create(
  r: CelResourceContext,
  apiVersion: string,
  resource: string,
  namespace: string,
  data: unknown,
): unknown {
  const resources = port(r, `create ${resource}`);
  confine(r, namespace, 'create');
  const object = celToJson(data, 'resource.Post');
  if (!isObject(object)) throw celError('failed to create resource: the object must be a map');
  const answer = r.calls.run('failed to create resource', (call) =>
    resources.create({ apiVersion, resource, namespace }, object, call),
  );
  const convert = (created: unknown): unknown => toCelObject(created, 'resource.Post');
  return answer instanceof Promise ? answer.then(convert) : convert(answer);
}

function gvrOf(r: CelResourceContext, apiVersion: string, kind: string): unknown {
  const resources = port(r, `map ${kind} to a resource`);
  const answer = r.calls.run(
    'failed to map kind to resource',
    (call) => resources.toGVR(apiVersion, kind, call),
    () => undefined,
  );
  const convert = (gvr: { group: string; version: string; resource: string }): CelGroupVersionResource =>
    new CelGroupVersionResource(gvr.group, gvr.version, gvr.resource);
  return answer instanceof Promise ? answer.then(convert) : convert(answer);
}
