/**
 * `pods/log` on a cluster without kubelets. kube-apiserver checks the container name itself, then
 * streams from the Pod's kubelet and relays a kubelet refusal as 400 BadRequest with the kubelet's
 * text. No container runs here, so this server answers as a kubelet would for a container that has
 * not started: its waiting reason, `ContainerCreating` when the Pod has no status for it yet (what
 * a kubelet reports first). (A real unscheduled Pod answers an empty log; here nothing is ever
 * scheduled, and an empty answer with exit code 0 hid that no container ran.)
 */
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import { badRequest } from '../status';

const CONTAINER_FIELDS = ['initContainers', 'containers', 'ephemeralContainers'] as const;
const STATUS_FIELDS = ['initContainerStatuses', 'containerStatuses', 'ephemeralContainerStatuses'] as const;

function entries(value: JsonValue | undefined): JsonObject[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

function containerNames(spec: JsonObject, fields: readonly string[]): string[] {
  return fields.flatMap((field) => entries(spec[field]).map((container) => String(container.name ?? '')));
}

/**
 * The container a request for `pod` names, checked as kube-apiserver checks it for log, exec and
 * attach: without a name only a single-container Pod will do, and a name must be one of its
 * init, regular or ephemeral containers.
 */
export function requestedContainer(pod: JsonObject, podName: string, requested: JsonValue | undefined): string {
  const spec = isObject(pod.spec) ? pod.spec : {};
  if (typeof requested !== 'string' || requested === '') {
    const regular = containerNames(spec, ['containers']);
    if (regular.length === 1) return regular[0]!;
    if (regular.length === 0) throw badRequest(`a container name must be specified for pod ${podName}`);
    // Go prints the names as a slice: `[a b]`, init containers first.
    const all = containerNames(spec, CONTAINER_FIELDS);
    throw badRequest(`a container name must be specified for pod ${podName}, choose one of: [${all.join(' ')}]`);
  }
  if (!containerNames(spec, CONTAINER_FIELDS).includes(requested)) {
    throw badRequest(`container ${requested} is not valid for pod ${podName}`);
  }
  return requested;
}

/** The log of a container that never ran: the kubelet's refusal, or an empty log once it has run. */
export function containerLog(pod: JsonObject, podName: string, container: string, previous: boolean): string {
  const status = isObject(pod.status) ? pod.status : {};
  const containerStatus = STATUS_FIELDS.flatMap((field) => entries(status[field])).find(
    (entry) => entry.name === container,
  );
  const state = isObject(containerStatus?.state) ? containerStatus.state : {};
  const lastState = isObject(containerStatus?.lastState) ? containerStatus.lastState : {};
  const subject = `container ${JSON.stringify(container)} in pod ${JSON.stringify(podName)}`;
  if (previous) {
    if (!isObject(lastState.terminated)) {
      throw badRequest(`previous terminated ${subject} not found`);
    }
    return '';
  }
  // A container that ran (or runs) has a log, which no kubelet here kept.
  if (isObject(state.running) || isObject(state.terminated) || isObject(lastState.terminated)) return '';
  const waiting = containerStatus === undefined ? { reason: 'ContainerCreating' } : state.waiting;
  if (!isObject(waiting)) throw badRequest(`${subject} is waiting to start - no logs yet`);
  const reason = String(waiting.reason ?? '');
  if (reason === 'ErrImagePull') throw badRequest(`${subject} is waiting to start: image can't be pulled`);
  if (reason === 'ImagePullBackOff')
    throw badRequest(`${subject} is waiting to start: trying and failing to pull image`);
  throw badRequest(`${subject} is waiting to start: ${reason}`);
}
