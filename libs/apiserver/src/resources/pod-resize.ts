/**
 * `pods/resize`, as kube-apiserver serves it (In-place Pod Vertical Scaling): a PUT or PATCH of the
 * whole Pod of which only the containers' `resources` and `resizePolicy` are kept (regular
 * containers, and init containers that are sidecars), then checked as Kubernetes' ValidatePodResize
 * checks it: containers neither added, removed, renamed nor reordered, no request or limit removed,
 * only cpu and memory changed, the QoS class unchanged, no static, Windows or pod-level-resources Pod.
 */
import {
  deepEqual,
  isObject,
  parseQuantity,
  quantitiesEqual,
  type JsonObject,
  type JsonValue,
  type Quantity,
} from '@edict/foundation';
import type { StatusCause } from '../status';

const CPU_MEMORY = ['cpu', 'memory'] as const;
const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

/** The Pod a resize stores: the old Pod with the new containers' resources and resize policies. */
export function resizedPod(old: JsonObject, body: JsonObject, oldMeta: JsonObject): JsonObject {
  const oldSpec = specOf(old);
  const newSpec = specOf(body);
  // Added, removed, renamed or reordered containers are kept as sent, for the validation to refuse.
  const containers = keepResizeFields(listOf(newSpec.containers), listOf(oldSpec.containers));
  const initContainers = keepResizeFields(listOf(newSpec.initContainers), listOf(oldSpec.initContainers));
  if (!containers || !initContainers) return { ...old, metadata: { ...oldMeta }, spec: newSpec };
  const spec: JsonObject = { ...oldSpec };
  if (oldSpec.containers !== undefined || containers.length > 0) spec.containers = containers;
  if (oldSpec.initContainers !== undefined || initContainers.length > 0) spec.initContainers = initContainers;
  return { ...old, metadata: { ...oldMeta }, spec };
}

/** Why Kubernetes refuses this resize, [] when it accepts it (`updated` is what resizedPod returned). */
export function podResizeProblems(old: JsonObject, updated: JsonObject): StatusCause[] {
  const oldSpec = specOf(old);
  const newSpec = specOf(updated);
  if (hasPodLevelResources(oldSpec) || hasPodLevelResources(newSpec)) {
    return [forbidden('', 'pods with pod-level resources cannot be resized')];
  }
  const annotations = isObject(old.metadata) && isObject(old.metadata.annotations) ? old.metadata.annotations : {};
  if (annotations[MIRROR_POD_ANNOTATION] !== undefined) return [forbidden('', 'static pods cannot be resized')];
  if (isObject(oldSpec.os) && oldSpec.os.name === 'windows') {
    return [forbidden('', 'windows pods cannot be resized')];
  }
  const causes: StatusCause[] = [];
  const oldQos = podQosClass(oldSpec);
  if (oldQos !== podQosClass(newSpec)) {
    const status = isObject(updated.status) ? updated.status : {};
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec',
      message: `Invalid value: ${JSON.stringify(typeof status.qosClass === 'string' ? status.qosClass : '')}: Pod QOS Class may not change as a result of resizing`,
    });
  }
  const ordering = orderingProblems(newSpec, oldSpec);
  if (ordering.length > 0) return [...causes, ...ordering];

  const oldInit = listOf(oldSpec.initContainers);
  const newInit = listOf(newSpec.initContainers);
  const oldContainers = listOf(oldSpec.containers);
  const newContainers = listOf(newSpec.containers);
  oldInit.forEach((container, index) => {
    if (isSidecar(container))
      causes.push(...removals(newInit[index]!, container, `spec.initContainers[${index}].resources`));
  });
  oldContainers.forEach((container, index) => {
    causes.push(...removals(newContainers[index]!, container, `spec.containers[${index}].resources`));
  });

  // With cpu and memory put back as they were, nothing else of the spec may differ.
  const restored: JsonObject = { ...newSpec };
  const containers = newContainers.map((container, index) => {
    const back = withOldCpuMemory(container, oldContainers[index]!);
    if (!sameContainer(back, oldContainers[index]!)) {
      causes.push(forbidden('spec', 'only cpu and memory resources are mutable'));
    }
    return back;
  });
  if (newSpec.containers !== undefined) restored.containers = containers;
  const initContainers = newInit.map((container, index) => {
    if (!isSidecar(container)) return container;
    const back = withOldCpuMemory(container, oldInit[index]!);
    if (!sameContainer(back, oldInit[index]!)) {
      causes.push(forbidden('spec', 'only cpu and memory resources for sidecar containers are mutable'));
    }
    return back;
  });
  if (newSpec.initContainers !== undefined) restored.initContainers = initContainers;
  if (!sameSpec(restored, oldSpec)) causes.push(forbidden('spec', 'only cpu and memory resources are mutable'));
  return dedupe(causes);
}

/** Kubernetes' QoS class from the containers' cpu and memory requests and limits (requests default to limits). */
export function podQosClass(spec: JsonObject): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const requests = new Map<string, Quantity>();
  const limits = new Map<string, Quantity>();
  let guaranteed = true;
  for (const container of [...listOf(spec.initContainers), ...listOf(spec.containers)]) {
    const resources = isObject(container.resources) ? container.resources : {};
    const ownLimits = quantities(resources.limits);
    // Defaulting copies a limit to a missing request.
    const ownRequests = new Map([...ownLimits, ...quantities(resources.requests)]);
    for (const [name, quantity] of ownRequests) if (quantity.nanos > 0n) add(requests, name, quantity);
    for (const [name, quantity] of ownLimits) if (quantity.nanos > 0n) add(limits, name, quantity);
    if (!CPU_MEMORY.every((name) => ownLimits.has(name))) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, request] of requests) {
      const limit = limits.get(name);
      if (!limit || !quantitiesEqual(limit, request)) guaranteed = false;
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}

function add(sums: Map<string, Quantity>, name: string, quantity: Quantity): void {
  const sum = sums.get(name);
  sums.set(name, sum ? { nanos: sum.nanos + quantity.nanos, format: sum.format } : quantity);
}

/** The cpu and memory entries of a resource list, parsed (unparseable ones are the schema check's). */
function quantities(list: JsonValue | undefined): Map<string, Quantity> {
  const found = new Map<string, Quantity>();
  if (!isObject(list)) return found;
  for (const name of CPU_MEMORY) {
    const value = list[name];
    const quantity =
      typeof value === 'string'
        ? parseQuantity(value)
        : typeof value === 'number'
          ? parseQuantity(String(value))
          : undefined;
    if (quantity) found.set(name, quantity);
  }
  return found;
}

/** Old containers with the new ones' resources and resize policies; undefined when names or count differ. */
function keepResizeFields(next: JsonObject[], previous: JsonObject[]): JsonObject[] | undefined {
  if (next.length !== previous.length) return undefined;
  const kept: JsonObject[] = [];
  for (const [index, container] of next.entries()) {
    const old = previous[index]!;
    if (old.name !== container.name) return undefined;
    const merged: JsonObject = { ...old };
    for (const field of ['resources', 'resizePolicy']) {
      if (container[field] === undefined) delete merged[field];
      else merged[field] = container[field]!;
    }
    kept.push(merged);
  }
  return kept;
}

function orderingProblems(next: JsonObject, previous: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const field of ['containers', 'initContainers']) {
    const now = listOf(next[field]);
    const before = listOf(previous[field]);
    if (now.length !== before.length) {
      causes.push(forbidden(`spec.${field}`, `${field} may not be added or removed on resize`));
      continue;
    }
    before.forEach((container, index) => {
      if (now[index]!.name !== container.name) {
        causes.push(forbidden(`spec.${field}[${index}].name`, `${field} may not be renamed or reordered on resize`));
      }
    });
  }
  return causes;
}

/** A request or limit the old container had and the new one dropped. */
function removals(next: JsonObject, previous: JsonObject, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const before = isObject(previous.resources) ? previous.resources : {};
  const now = isObject(next.resources) ? next.resources : {};
  for (const list of ['requests', 'limits']) {
    const old = isObject(before[list]) ? before[list] : {};
    const current = isObject(now[list]) ? now[list] : {};
    for (const name of Object.keys(old)) {
      if (current[name] === undefined)
        causes.push(forbidden(`${path}.${list}[${name}]`, 'resource removal is not supported'));
    }
  }
  return causes;
}

/** The container with the old cpu and memory entries and resize policy (Kubernetes' dropCPUMemoryResourcesFromContainer). */
function withOldCpuMemory(container: JsonObject, old: JsonObject): JsonObject {
  const resources = isObject(container.resources) ? container.resources : {};
  const oldResources = isObject(old.resources) ? old.resources : {};
  const back: JsonObject = {};
  for (const list of ['limits', 'requests']) {
    const oldList = oldResources[list];
    if (!isObject(oldList)) continue; // without an old list, none is kept
    const munged: JsonObject = isObject(resources[list]) ? { ...resources[list] } : {};
    for (const name of CPU_MEMORY) {
      delete munged[name];
      if (oldList[name] !== undefined) munged[name] = oldList[name]!;
    }
    back[list] = munged;
  }
  const restored: JsonObject = { ...container, resources: back };
  if (old.resizePolicy === undefined) delete restored.resizePolicy;
  else restored.resizePolicy = old.resizePolicy;
  return restored;
}

/** Equal as Go compares the typed containers: an empty or missing resource list is the same. */
function sameContainer(a: JsonObject, b: JsonObject): boolean {
  return deepEqual(normalized(a), normalized(b));
}

function sameSpec(a: JsonObject, b: JsonObject): boolean {
  const normalize = (spec: JsonObject): JsonObject => ({
    ...spec,
    ...(spec.containers !== undefined ? { containers: listOf(spec.containers).map(normalized) } : {}),
    ...(spec.initContainers !== undefined ? { initContainers: listOf(spec.initContainers).map(normalized) } : {}),
  });
  return deepEqual(normalize(a), normalize(b));
}

function normalized(container: JsonObject): JsonObject {
  const resources = isObject(container.resources) ? container.resources : {};
  const kept: JsonObject = {};
  for (const [key, value] of Object.entries(resources)) {
    if (isObject(value) && Object.keys(value).length === 0) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    kept[key] = canonicalList(value);
  }
  const result: JsonObject = { ...container };
  if (Object.keys(kept).length > 0) result.resources = kept;
  else delete result.resources;
  return result;
}

/** Quantities compared by value, as Go's semantic equality does ("1" is "1000m"). */
function canonicalList(value: JsonValue): JsonValue {
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [name, quantity] of Object.entries(value)) {
    const parsed = typeof quantity === 'string' ? parseQuantity(quantity) : undefined;
    out[name] = parsed ? `${parsed.nanos}n` : quantity;
  }
  return out;
}

function hasPodLevelResources(spec: JsonObject): boolean {
  const resources = isObject(spec.resources) ? spec.resources : {};
  const count = (list: JsonValue | undefined) => (isObject(list) ? Object.keys(list).length : 0);
  return count(resources.requests) + count(resources.limits) > 0;
}

function isSidecar(container: JsonObject): boolean {
  return container.restartPolicy === 'Always';
}

function specOf(pod: JsonObject): JsonObject {
  return isObject(pod.spec) ? pod.spec : {};
}

function listOf(value: JsonValue | undefined): JsonObject[] {
  return Array.isArray(value) ? value.map((item) => (isObject(item) ? item : {})) : [];
}

function forbidden(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` };
}

function dedupe(causes: StatusCause[]): StatusCause[] {
  const seen = new Set<string>();
  return causes.filter((cause) => {
    const key = `${cause.field}\u0000${cause.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
