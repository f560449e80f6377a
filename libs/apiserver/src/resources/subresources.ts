/**
 * Subresources with a kind of their own, as kube-apiserver serves them: `/scale` (an `autoscaling/v1`
 * Scale over a workload's replicas), `pods/eviction` (a `policy/v1` Eviction that deletes the Pod),
 * `pods/exec|attach|portforward|proxy` (CONNECT: admitted with the options object, then answered as a
 * server without nodes answers), `pods/binding` (a v1 Binding that assigns the Pod to a node, what a
 * scheduler sends), `pods/log` and `serviceaccounts/token`. Webhooks see the subresource's own
 * kind with the parent resource, as in kube.
 */
import { randomBytes } from 'node:crypto';
import { isObject, matchesLabelSelector, type JsonObject, type JsonValue, type LabelSelector } from '@edict/foundation';
import type {
  AdmissionAttributes,
  AdmissionChain,
  AdmissionRequestContext,
  GroupVersionKind,
} from '../admission/types';
import { applyJsonPatch } from '../patch/json-patch';
import { applyMergePatch } from '../patch/merge-patch';
import { apiVersionOf, type ResourceType } from '../registry/resource-type';
import { ApiError, badRequest, conflict, notFound } from '../status';
import { metadataOf, timestamp } from './prepare';
import type { ResourceService } from './service';
import type { PatchType } from './write-options';
import { containerLog, requestedContainer } from './pod-logs';

export const SCALE_KIND: GroupVersionKind = { group: 'autoscaling', version: 'v1', kind: 'Scale' };
const EVICTION_KIND: GroupVersionKind = { group: 'policy', version: 'v1', kind: 'Eviction' };
const TOKEN_REQUEST_KIND: GroupVersionKind = { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' };
const BINDING_KIND: GroupVersionKind = { group: '', version: 'v1', kind: 'Binding' };
const CONNECT_KINDS: Readonly<Record<string, string>> = {
  exec: 'PodExecOptions',
  attach: 'PodAttachOptions',
  portforward: 'PodPortForwardOptions',
  proxy: 'PodProxyOptions',
};
/** Query parameters of each connect options kind, and which are booleans or lists. */
const CONNECT_PARAMETERS: Readonly<Record<string, { flags: string[]; strings: string[]; lists: string[] }>> = {
  exec: { flags: ['stdin', 'stdout', 'stderr', 'tty'], strings: ['container'], lists: ['command'] },
  attach: { flags: ['stdin', 'stdout', 'stderr', 'tty'], strings: ['container'], lists: [] },
  portforward: { flags: [], strings: [], lists: ['ports'] },
  proxy: { flags: [], strings: ['path'], lists: [] },
};
const DEFAULT_TOKEN_SECONDS = 3600;

export class SubresourceService {
  constructor(
    private readonly resources: ResourceService,
    /** The chain the subresource's own kind is admitted through (Scale, Eviction, ...). */
    private readonly admission: AdmissionChain,
  ) {}

  getScale(type: ResourceType, namespace: string | undefined, name: string): JsonObject {
    return scaleOf(type, this.resources.get(type, namespace, name));
  }

  /** PUT (a whole Scale) or PATCH (any patch type, applied to the current Scale). */
  async writeScale(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    change: { body: JsonValue } | { patchType: PatchType; patch: JsonValue },
    options: { dryRun: boolean; fieldManager?: string },
    context: AdmissionRequestContext,
  ): Promise<JsonObject> {
    const parent = this.resources.get(type, namespace, name);
    const oldScale = scaleOf(type, parent);
    const requested = 'body' in change ? change.body : patchScale(oldScale, change.patchType, change.patch);
    if (!isObject(requested)) throw badRequest('the body of the request is not a Scale object');
    const requestedMeta = metadataOf(requested);
    if (
      typeof requestedMeta.resourceVersion === 'string' &&
      requestedMeta.resourceVersion !== '' &&
      requestedMeta.resourceVersion !== metadataOf(parent).resourceVersion
    ) {
      throw conflict({ group: type.group, kind: type.plural, name });
    }
    const spec = isObject(requested.spec) ? requested.spec : {};
    let scale: JsonObject = { ...oldScale, spec: { ...spec } };
    const attributes = this.attributes(type, 'UPDATE', 'scale', SCALE_KIND, name, namespace, options, context, {
      kind: 'UpdateOptions',
      apiVersion: 'meta.k8s.io/v1',
      ...(options.dryRun ? { dryRun: ['All'] } : {}),
      ...(options.fieldManager ? { fieldManager: options.fieldManager } : {}),
    });
    scale =
      (await this.admission.mutate({ ...attributes, object: scale, oldObject: oldScale }, context.warnings)) ?? scale;
    await this.admission.validate({ ...attributes, object: scale, oldObject: oldScale }, context.warnings);
    const replicas = isObject(scale.spec) ? scale.spec.replicas : undefined;
    if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
      throw new ApiError(
        422,
        'Invalid',
        `Scale.autoscaling "${name}" is invalid: spec.replicas: Invalid value: ${JSON.stringify(replicas ?? null)}: must be greater than or equal to 0`,
      );
    }
    const parentSpec = isObject(parent.spec) ? parent.spec : {};
    const updated = this.resources.withoutAdmission.update(
      type,
      namespace,
      name,
      { ...parent, spec: { ...parentSpec, replicas } },
      { dryRun: options.dryRun },
    );
    return scaleOf(type, updated.object);
  }

  /** `pods/eviction`: admitted as a CREATE of an Eviction, then the Pod is deleted unless a budget stops it. */
  async evict(
    namespace: string,
    name: string,
    body: JsonValue,
    options: { dryRun: boolean },
    context: AdmissionRequestContext,
    podType: ResourceType,
    budgetType: ResourceType | undefined,
  ): Promise<JsonObject> {
    if (!isObject(body)) throw badRequest('the body of the request is not an Eviction object');
    const eviction: JsonObject = {
      ...body,
      apiVersion: typeof body.apiVersion === 'string' ? body.apiVersion : 'policy/v1',
      kind: 'Eviction',
      metadata: { ...metadataOf(body), name, namespace },
    };
    const bodyName = metadataOf(body).name;
    if (bodyName !== undefined && bodyName !== name) {
      throw badRequest(`name in URL does not match name in Eviction object`);
    }
    const attributes = this.attributes(
      podType,
      'CREATE',
      'eviction',
      EVICTION_KIND,
      name,
      namespace,
      options,
      context,
      {
        kind: 'CreateOptions',
        apiVersion: 'meta.k8s.io/v1',
        ...(options.dryRun ? { dryRun: ['All'] } : {}),
      },
    );
    const admitted = (await this.admission.mutate({ ...attributes, object: eviction }, context.warnings)) ?? eviction;
    await this.admission.validate({ ...attributes, object: admitted }, context.warnings);
    const pod = this.resources.get(podType, namespace, name);
    if (budgetType) this.checkBudgets(budgetType, namespace, pod);
    const deleteOptions = isObject(admitted.deleteOptions) ? admitted.deleteOptions : {};
    const dryRun = options.dryRun || (Array.isArray(deleteOptions.dryRun) && deleteOptions.dryRun.includes('All'));
    this.resources.withoutAdmission.delete(podType, namespace, name, { dryRun });
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
  }

  /**
   * No controller computes a PodDisruptionBudget's status here, so a budget selecting the Pod is
   * always "still being processed", which is what kube-apiserver answers before its controller ran.
   */
  private checkBudgets(budgetType: ResourceType, namespace: string, pod: JsonObject): void {
    const labels = metadataOf(pod).labels;
    const podLabels = isObject(labels) ? (labels as Record<string, string>) : {};
    for (const budget of this.resources.list(budgetType, namespace).items) {
      const spec = isObject(budget.spec) ? budget.spec : {};
      const selector = isObject(spec.selector) ? spec.selector : undefined;
      if (!selector || !matchesLabelSelector(selector as LabelSelector, podLabels)) continue;
      throw new ApiError(429, 'TooManyRequests', `Cannot evict pod as it would violate the pod's disruption budget.`, {
        causes: [
          {
            reason: 'DisruptionBudget',
            message: `The disruption budget ${String(metadataOf(budget).name)} is still being processed by the server.`,
          },
        ],
      });
    }
  }

  /**
   * `pods/exec|attach|portforward`: admission sees a CONNECT with the options object; then, with no
   * node to stream from, the answer is the one kube-apiserver gives for an unscheduled Pod.
   */
  async connect(
    podType: ResourceType,
    namespace: string,
    name: string,
    subresource: string,
    query: URLSearchParams,
    context: AdmissionRequestContext,
  ): Promise<never> {
    const kind = CONNECT_KINDS[subresource]!;
    const options = connectOptions(subresource, kind, query);
    const attributes = this.attributes(
      podType,
      'CONNECT',
      subresource,
      { group: '', version: 'v1', kind },
      name,
      namespace,
      { dryRun: false },
      context,
      options,
    );
    const admitted = (await this.admission.mutate({ ...attributes, object: options }, context.warnings)) ?? options;
    await this.admission.validate({ ...attributes, object: admitted }, context.warnings);
    const pod = this.resources.get(podType, namespace, name);
    if (subresource === 'exec' || subresource === 'attach') requestedContainer(pod, name, admitted.container);
    const spec = isObject(pod.spec) ? pod.spec : {};
    if (typeof spec.nodeName !== 'string' || spec.nodeName === '') {
      throw badRequest(`pod ${name} does not have a host assigned`);
    }
    throw notFound({ group: '', kind: 'nodes', name: spec.nodeName });
  }

  /**
   * `pods/binding`: admitted as a CREATE of a v1 Binding, then the Pod is assigned to the target
   * node as kube-apiserver's binding storage does (target kind empty or Node; a Pod already assigned
   * is a conflict; the Binding's annotations copied; PodScheduled set).
   */
  async bind(
    podType: ResourceType,
    namespace: string,
    name: string,
    body: JsonValue,
    options: { dryRun: boolean },
    context: AdmissionRequestContext,
  ): Promise<JsonObject> {
    if (!isObject(body)) throw badRequest('the body of the request is not a Binding object');
    const bodyName = metadataOf(body).name;
    if (bodyName !== undefined && bodyName !== name)
      throw badRequest('name in URL does not match name in Binding object');
    const binding: JsonObject = {
      ...body,
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { ...metadataOf(body), name, namespace },
    };
    const attributes = this.attributes(podType, 'CREATE', 'binding', BINDING_KIND, name, namespace, options, context, {
      kind: 'CreateOptions',
      apiVersion: 'meta.k8s.io/v1',
      ...(options.dryRun ? { dryRun: ['All'] } : {}),
    });
    const admitted = (await this.admission.mutate({ ...attributes, object: binding }, context.warnings)) ?? binding;
    await this.admission.validate({ ...attributes, object: admitted }, context.warnings);
    const target = isObject(admitted.target) ? admitted.target : {};
    if (target.kind !== undefined && target.kind !== '' && target.kind !== 'Node') {
      throw new ApiError(
        422,
        'Invalid',
        `Binding "${name}" is invalid: target.kind: Invalid value: ${JSON.stringify(target.kind)}: must be empty or 'Node'`,
      );
    }
    const node = typeof target.name === 'string' ? target.name : '';
    if (node === '') {
      throw new ApiError(422, 'Invalid', `Binding "${name}" is invalid: target.name: Required value`);
    }
    const pod = this.resources.get(podType, namespace, name);
    const spec = isObject(pod.spec) ? pod.spec : {};
    if (typeof spec.nodeName === 'string' && spec.nodeName !== '') {
      throw new ApiError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on pods/binding "${name}": pod ${name} is already assigned to node "${spec.nodeName}"`,
      );
    }
    const meta = metadataOf(pod);
    const bindingAnnotations = metadataOf(admitted).annotations;
    const annotations = {
      ...(isObject(meta.annotations) ? meta.annotations : {}),
      ...(isObject(bindingAnnotations) ? bindingAnnotations : {}),
    };
    const status = isObject(pod.status) ? pod.status : {};
    const conditions = (Array.isArray(status.conditions) ? status.conditions : []).filter(
      (condition) => !isObject(condition) || condition.type !== 'PodScheduled',
    );
    conditions.push({
      type: 'PodScheduled',
      status: 'True',
      lastProbeTime: null,
      lastTransitionTime: timestamp(new Date()),
    });
    const assigned = this.resources.withoutAdmission.update(
      podType,
      namespace,
      name,
      {
        ...pod,
        metadata: { ...meta, ...(Object.keys(annotations).length > 0 ? { annotations } : {}) },
        spec: { ...spec, nodeName: node },
      },
      { dryRun: options.dryRun },
    ).object;
    this.resources.withoutAdmission.update(
      podType,
      namespace,
      name,
      { ...assigned, status: { ...status, conditions } },
      { dryRun: options.dryRun, subresource: 'status' },
    );
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
  }

  /** `pods/log`: the container is checked, then answered as a kubelet answers for one that never ran. */
  log(podType: ResourceType, namespace: string, name: string, query: URLSearchParams): string {
    const pod = this.resources.get(podType, namespace, name);
    const container = requestedContainer(pod, name, query.get('container') ?? undefined);
    const spec = isObject(pod.spec) ? pod.spec : {};
    if (typeof spec.nodeName === 'string' && spec.nodeName !== '') {
      throw notFound({ group: '', kind: 'nodes', name: spec.nodeName });
    }
    return containerLog(pod, name, container, query.get('previous') === 'true');
  }

  /** `serviceaccounts/token`: a TokenRequest answered with an opaque token (nothing verifies it here). */
  async requestToken(
    type: ResourceType,
    namespace: string,
    name: string,
    body: JsonValue,
    options: { dryRun: boolean },
    context: AdmissionRequestContext,
  ): Promise<JsonObject> {
    const account = this.resources.get(type, namespace, name);
    const request: JsonObject = isObject(body) ? { ...body } : {};
    const spec = isObject(request.spec) ? request.spec : {};
    const seconds =
      typeof spec.expirationSeconds === 'number' && spec.expirationSeconds >= 600
        ? spec.expirationSeconds
        : DEFAULT_TOKEN_SECONDS;
    const object: JsonObject = {
      ...request,
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      metadata: { ...metadataOf(request), name, namespace },
      spec: { audiences: [], ...spec, expirationSeconds: seconds },
    };
    const attributes = this.attributes(type, 'CREATE', 'token', TOKEN_REQUEST_KIND, name, namespace, options, context, {
      kind: 'CreateOptions',
      apiVersion: 'meta.k8s.io/v1',
      ...(options.dryRun ? { dryRun: ['All'] } : {}),
    });
    const admitted = (await this.admission.mutate({ ...attributes, object }, context.warnings)) ?? object;
    await this.admission.validate({ ...attributes, object: admitted }, context.warnings);
    const expires = new Date(Date.now() + seconds * 1000);
    const claims = {
      sub: `system:serviceaccount:${namespace}:${name}`,
      uid: metadataOf(account).uid,
      exp: Math.floor(expires.getTime() / 1000),
    };
    const token = [
      Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url'),
      Buffer.from(JSON.stringify(claims)).toString('base64url'),
      randomBytes(16).toString('base64url'),
    ].join('.');
    return { ...admitted, status: { token, expirationTimestamp: timestamp(expires) } };
  }

  private attributes(
    type: ResourceType,
    operation: AdmissionAttributes['operation'],
    subresource: string,
    kind: GroupVersionKind,
    name: string,
    namespace: string | undefined,
    options: { dryRun: boolean },
    context: AdmissionRequestContext,
    requestOptions: JsonObject,
  ): AdmissionAttributes {
    return {
      operation,
      type,
      subresource,
      kind,
      name,
      namespace: type.namespaced ? (namespace ?? '') : '',
      dryRun: options.dryRun,
      userInfo: context.userInfo,
      options: requestOptions,
    };
  }
}

/** The Scale of a workload: replicas from its spec and status, the selector as a label-selector string. */
export function scaleOf(type: ResourceType, object: JsonObject): JsonObject {
  const meta = metadataOf(object);
  const spec = isObject(object.spec) ? object.spec : {};
  const status = isObject(object.status) ? object.status : {};
  const selector = selectorString(type, spec.selector);
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: meta.name ?? '',
      ...(meta.namespace !== undefined ? { namespace: meta.namespace } : {}),
      ...(meta.uid !== undefined ? { uid: meta.uid } : {}),
      ...(meta.resourceVersion !== undefined ? { resourceVersion: meta.resourceVersion } : {}),
      ...(meta.creationTimestamp !== undefined ? { creationTimestamp: meta.creationTimestamp } : {}),
    },
    spec: { replicas: typeof spec.replicas === 'number' ? spec.replicas : 1 },
    status: {
      replicas: typeof status.replicas === 'number' ? status.replicas : 0,
      ...(selector ? { selector } : {}),
    },
  };
}

function selectorString(type: ResourceType, selector: JsonValue | undefined): string {
  if (!isObject(selector)) return '';
  // A ReplicationController's selector is a plain label map.
  const matchLabels =
    apiVersionOf(type) === 'v1' ? selector : isObject(selector.matchLabels) ? selector.matchLabels : {};
  const parts = Object.entries(matchLabels).map(([key, value]) => `${key}=${String(value)}`);
  const expressions =
    apiVersionOf(type) === 'v1' || !Array.isArray(selector.matchExpressions) ? [] : selector.matchExpressions;
  for (const expression of expressions) {
    if (!isObject(expression)) continue;
    const values = Array.isArray(expression.values) ? expression.values.map(String).sort().join(',') : '';
    const key = String(expression.key);
    if (expression.operator === 'In') parts.push(`${key} in (${values})`);
    else if (expression.operator === 'NotIn') parts.push(`${key} notin (${values})`);
    else if (expression.operator === 'Exists') parts.push(key);
    else if (expression.operator === 'DoesNotExist') parts.push(`!${key}`);
  }
  return parts.sort().join(',');
}

function patchScale(scale: JsonObject, patchType: PatchType, patch: JsonValue): JsonValue {
  if (patchType === 'json') return applyJsonPatch(scale, patch);
  // Scale has no list fields: strategic merge and apply come down to a merge patch.
  return applyMergePatch(scale, patch);
}

function connectOptions(subresource: string, kind: string, query: URLSearchParams): JsonObject {
  const parameters = CONNECT_PARAMETERS[subresource]!;
  const options: JsonObject = { kind, apiVersion: 'v1' };
  for (const flag of parameters.flags) {
    const value = query.get(flag);
    if (value !== null) options[flag] = value === 'true' || value === '1';
  }
  for (const field of parameters.strings) {
    const value = query.get(field);
    if (value !== null && value !== '') options[field] = value;
  }
  for (const field of parameters.lists) {
    const values = query.getAll(field);
    if (values.length > 0) options[field] = field === 'ports' ? values.map(Number) : values;
  }
  return options;
}
