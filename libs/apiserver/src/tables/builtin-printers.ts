/**
 * Columns for built-in kinds, as kube-apiserver's printers lay them out. Only columns computable from
 * the stored object are served; they all are for the kinds below, but a cluster without kubelets
 * leaves pod IPs, nodes and readiness empty (`<none>`, `0/1`). Other built-in kinds get Name and Age.
 */
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import { ageOf } from './human-duration';
import { AGE_COLUMN, column, NAME_COLUMN, type ColumnDefinition, type TablePrinter } from './columns';
import { toCoreEvent } from '../resources/event-versions';

const NONE = '<none>';

type Fields = Readonly<Record<string, JsonValue | undefined>>;

function fields(value: unknown): Fields {
  return isObject(value) ? value : {};
}

function list(value: unknown): Fields[] {
  return Array.isArray(value) ? value.map(fields) : [];
}

function count(value: unknown): number {
  return isObject(value) ? Object.keys(value).length : 0;
}

function int(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : 0;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** `a=1,b=2` (keys sorted), `<none>` when empty: kube's label formatting. */
function labelPairs(value: unknown): string {
  const pairs = Object.entries(fields(value))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, v]) => `${key}=${text(v)}`);
  return pairs.length > 0 ? pairs.join(',') : NONE;
}

/** A LabelSelector as kube prints it: `app=web,tier in (a,b),!legacy`. */
function selectorText(value: unknown): string {
  const selector = fields(value);
  const parts = Object.entries(fields(selector.matchLabels)).map(([key, v]) => ({ key, text: `${key}=${text(v)}` }));
  for (const expression of list(selector.matchExpressions)) {
    const key = text(expression.key);
    const values = (Array.isArray(expression.values) ? expression.values.map(text) : []).sort();
    const operator = text(expression.operator);
    const rendered =
      operator === 'In'
        ? `${key} in (${values.join(',')})`
        : operator === 'NotIn'
          ? `${key} notin (${values.join(',')})`
          : operator === 'Exists'
            ? key
            : operator === 'DoesNotExist'
              ? `!${key}`
              : `${key} ${operator}`;
    parts.push({ key, text: rendered });
  }
  parts.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return parts.length > 0 ? parts.map((part) => part.text).join(',') : NONE;
}

function printer(
  columns: readonly ColumnDefinition[],
  cells: (object: JsonObject, now: number) => JsonValue[],
): TablePrinter {
  return { columns, cells };
}

const podPrinter = printer(
  [
    NAME_COLUMN,
    column('Ready', 'string', 'Ready containers out of the containers the pod runs.'),
    column('Status', 'string', "The pod's aggregate status: its phase or a container's reason."),
    column('Restarts', 'string', 'Container restarts, summed over the containers.'),
    AGE_COLUMN,
    column('IP', 'string', "The pod's IP address (status.podIP).", 1),
    column('Node', 'string', 'The node the pod is bound to (spec.nodeName).', 1),
    column('Nominated Node', 'string', 'The node the scheduler nominated for preemption.', 1),
    column('Readiness Gates', 'string', 'Readiness gates that are true, out of those declared.', 1),
  ],
  (pod, now) => {
    const metadata = fields(pod.metadata);
    const spec = fields(pod.spec);
    const status = fields(pod.status);
    const statuses = list(status.containerStatuses);
    const sidecars = list(spec.initContainers).filter((c) => c.restartPolicy === 'Always').length;
    const ready = statuses.filter((c) => c.ready === true).length;
    const restarts = [...statuses, ...list(status.initContainerStatuses)].reduce((n, c) => n + int(c.restartCount), 0);
    const gates = list(spec.readinessGates);
    const conditions = list(status.conditions);
    const gatesTrue = gates.filter((gate) =>
      conditions.some((c) => c.type === gate.conditionType && c.status === 'True'),
    ).length;
    return [
      text(metadata.name),
      `${ready}/${list(spec.containers).length + sidecars}`,
      podReason(metadata, status, statuses),
      restarts,
      ageOf(metadata.creationTimestamp, now),
      text(status.podIP) || NONE,
      text(spec.nodeName) || NONE,
      text(status.nominatedNodeName) || NONE,
      gates.length > 0 ? `${gatesTrue}/${gates.length}` : NONE,
    ];
  },
);

/** The Status cell: the phase, overridden by the pod's reason, a container's state, or deletion. */
function podReason(metadata: Fields, status: Fields, containers: Fields[]): string {
  let reason = text(status.reason) || text(status.phase);
  for (const container of [...containers].reverse()) {
    const state = fields(container.state);
    const waiting = fields(state.waiting);
    const terminated = fields(state.terminated);
    if (text(waiting.reason)) reason = text(waiting.reason);
    else if (isObject(state.terminated)) {
      reason =
        text(terminated.reason) ||
        (int(terminated.signal) !== 0 ? `Signal:${int(terminated.signal)}` : `ExitCode:${int(terminated.exitCode)}`);
    }
  }
  if (metadata.deletionTimestamp !== undefined && status.reason !== 'NodeLost') return 'Terminating';
  return reason;
}

const namespacePrinter = printer(
  [NAME_COLUMN, column('Status', 'string', 'The namespace phase (Active or Terminating).'), AGE_COLUMN],
  (namespace, now) => {
    const metadata = fields(namespace.metadata);
    return [text(metadata.name), text(fields(namespace.status).phase), ageOf(metadata.creationTimestamp, now)];
  },
);

const configMapPrinter = printer(
  [NAME_COLUMN, column('Data', 'integer', 'Entries in data and binaryData.'), AGE_COLUMN],
  (configMap, now) => {
    const metadata = fields(configMap.metadata);
    return [
      text(metadata.name),
      count(configMap.data) + count(configMap.binaryData),
      ageOf(metadata.creationTimestamp, now),
    ];
  },
);

const secretPrinter = printer(
  [
    NAME_COLUMN,
    column('Type', 'string', 'The secret type.'),
    column('Data', 'integer', 'Entries in data.'),
    AGE_COLUMN,
  ],
  (secret, now) => {
    const metadata = fields(secret.metadata);
    return [text(metadata.name), text(secret.type), count(secret.data), ageOf(metadata.creationTimestamp, now)];
  },
);

function templateContainers(spec: Fields): Fields[] {
  return list(fields(fields(spec.template).spec).containers);
}

const deploymentPrinter = printer(
  [
    NAME_COLUMN,
    column('Ready', 'string', 'Ready replicas out of the desired replicas.'),
    column('Up-to-date', 'integer', 'Replicas running the current pod template.'),
    column('Available', 'integer', 'Replicas available to serve.'),
    AGE_COLUMN,
    column('Containers', 'string', 'Names of the containers in the pod template.', 1),
    column('Images', 'string', 'Images of the containers in the pod template.', 1),
    column('Selector', 'string', 'The label selector of the pods it manages.', 1),
  ],
  (deployment, now) => {
    const metadata = fields(deployment.metadata);
    const spec = fields(deployment.spec);
    const status = fields(deployment.status);
    const containers = templateContainers(spec);
    return [
      text(metadata.name),
      `${int(status.readyReplicas)}/${int(spec.replicas)}`,
      int(status.updatedReplicas),
      int(status.availableReplicas),
      ageOf(metadata.creationTimestamp, now),
      containers.map((c) => text(c.name)).join(','),
      containers.map((c) => text(c.image)).join(','),
      selectorText(spec.selector),
    ];
  },
);

const servicePrinter = printer(
  [
    NAME_COLUMN,
    column('Type', 'string', 'The service type.'),
    column('Cluster-IP', 'string', 'The cluster IP of the service.'),
    column('External-IP', 'string', 'External IPs and load-balancer ingress points.'),
    column('Port(s)', 'string', 'The ports the service exposes.'),
    AGE_COLUMN,
    column('Selector', 'string', 'The label selector of the pods it routes to.', 1),
  ],
  (service, now) => {
    const metadata = fields(service.metadata);
    const spec = fields(service.spec);
    const type = text(spec.type) || 'ClusterIP';
    return [
      text(metadata.name),
      type,
      text(spec.clusterIP) || NONE,
      externalAddresses(type, spec, fields(service.status)),
      servicePorts(spec),
      ageOf(metadata.creationTimestamp, now),
      labelPairs(spec.selector),
    ];
  },
);

function externalAddresses(type: string, spec: Fields, status: Fields): string {
  const external = Array.isArray(spec.externalIPs) ? spec.externalIPs.map(text) : [];
  if (type === 'ExternalName') return text(spec.externalName) || NONE;
  if (type === 'LoadBalancer') {
    const ingress = list(fields(status.loadBalancer).ingress).map((point) => text(point.ip) || text(point.hostname));
    const all = [...ingress, ...external].filter((address) => address !== '');
    return all.length > 0 ? all.join(',') : '<pending>';
  }
  return external.length > 0 ? external.join(',') : NONE;
}

function servicePorts(spec: Fields): string {
  const ports = list(spec.ports).map((port) => {
    const protocol = text(port.protocol) || 'TCP';
    return int(port.nodePort) > 0
      ? `${int(port.port)}:${int(port.nodePort)}/${protocol}`
      : `${int(port.port)}/${protocol}`;
  });
  return ports.length > 0 ? ports.join(',') : NONE;
}

/**
 * Events, core v1 and events.k8s.io/v1 alike (printed from the core form, as kube prints its internal
 * Event): LAST SEEN falls back to the first sighting, and a series overrides both the time and count.
 */
const eventPrinter = printer(
  [
    column('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.'),
    column('Type', 'string', 'Type of this event (Normal, Warning).'),
    column('Reason', 'string', 'A short, machine understandable string that gives the reason for the event.'),
    column('Object', 'string', 'The object that this event is about, as kind/name.'),
    column('Subobject', 'string', 'The part of the object the event is about (involvedObject.fieldPath).', 1),
    column('Source', 'string', 'The component reporting this event, and the host it runs on.', 1),
    column('Message', 'string', 'A human-readable description of the status of this operation.'),
    column('First Seen', 'string', 'The time at which the event was first recorded.', 1),
    column('Count', 'string', 'The number of times this event has occurred.', 1),
    column('Name', 'string', 'The event name, unique within its namespace.', 1, 'name'),
  ],
  (object, now) => {
    const event = toCoreEvent(object);
    const metadata = fields(event.metadata);
    const involved = fields(event.involvedObject);
    const series = isObject(event.series) ? event.series : undefined;
    const firstSeen = event.firstTimestamp ? ageOf(event.firstTimestamp, now) : ageOf(event.eventTime, now);
    let lastSeen = event.lastTimestamp ? ageOf(event.lastTimestamp, now) : firstSeen;
    let occurrences = int(event.count);
    if (series) {
      lastSeen = ageOf(series.lastObservedTime, now);
      occurrences = int(series.count);
    } else if (occurrences === 0) {
      // A singleton event of the events.k8s.io API has no count.
      occurrences = 1;
    }
    const kind = text(involved.kind).toLowerCase();
    const name = text(involved.name);
    const source = fields(event.source);
    const component = text(source.component) || text(event.reportingComponent);
    const host = text(source.host) || text(event.reportingInstance);
    return [
      lastSeen,
      text(event.type),
      text(event.reason),
      name ? `${kind}/${name}` : kind,
      text(involved.fieldPath),
      host ? `${component}, ${host}` : component,
      text(event.message).trim(),
      firstSeen,
      occurrences,
      text(metadata.name),
    ];
  },
);

const nameAndAge = printer([NAME_COLUMN, AGE_COLUMN], (object, now) => {
  const metadata = fields(object.metadata);
  return [text(metadata.name), ageOf(metadata.creationTimestamp, now)];
});

/** By group and plural (`apps/deployments`, `/pods`). */
const PRINTERS: ReadonlyMap<string, TablePrinter> = new Map([
  ['/pods', podPrinter],
  ['/namespaces', namespacePrinter],
  ['/configmaps', configMapPrinter],
  ['/secrets', secretPrinter],
  ['apps/deployments', deploymentPrinter],
  ['/services', servicePrinter],
  ['/events', eventPrinter],
  ['events.k8s.io/events', eventPrinter],
]);

export function builtinPrinter(group: string, plural: string): TablePrinter {
  return PRINTERS.get(`${group}/${plural}`) ?? nameAndAge;
}
