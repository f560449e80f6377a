import { isObject, type KubeObject } from '@edict/foundation';

/** Which objects a list of ignored fields applies to; an empty or absent pattern matches anything. */
export interface ObjectReference {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
  namespace?: string;
}

/** `ignoreFields` entry: fields left out of the manifest comparison for the objects listed (all when none). */
export interface IgnoreFieldBinding {
  fields: string[];
  objects: ObjectReference[];
}

const ANY: ObjectReference[] = [{ kind: '*' }];
const only = (kind: string, group?: string): ObjectReference[] => [{ kind, ...(group ? { group } : {}) }];

/** Fields the cluster itself sets or changes; k8s-manifest-sigstore ignores them by default. */
const SIGSTORE_DEFAULTS: IgnoreFieldBinding[] = [
  {
    fields: [
      'metadata.annotations.cosign.sigstore.dev/resourceBundleRef',
      'metadata.annotations.cosign.sigstore.dev/signature',
      'metadata.annotations.cosign.sigstore.dev/message',
      'metadata.annotations.cosign.sigstore.dev/certificate',
      'metadata.annotations.cosign.sigstore.dev/bundle',
    ],
    objects: ANY,
  },
  {
    fields: [
      'metadata.managedFields.*',
      'metadata.resourceVersion',
      'metadata.selfLink',
      'metadata.annotations.kubectl.kubernetes.io/last-applied-configuration',
      'metadata.annotations.namespace',
      'metadata.creationTimestamp',
      'metadata.generation',
      'metadata.uid',
      'metadata.finalizers',
      'metadata.labels.app.kubernetes.io/instance',
      'status',
    ],
    objects: ANY,
  },
  { fields: ['secrets.*.name', 'imagePullSecrets.*.name'], objects: only('ServiceAccount') },
  { fields: ['spec.ports.*.nodePort', 'spec.clusterIP', 'spec.clusterIPs.0'], objects: only('Service') },
  { fields: ['metadata.annotations.deployment.kubernetes.io/revision'], objects: only('Deployment') },
  { fields: ['metadata.annotations.deprecated.daemonset.template.generation'], objects: only('DaemonSet') },
  { fields: ['spec.host'], objects: only('Route', 'route.openshift.io') },
];

/** Kyverno adds its own list of defaulted and server-set fields per kind. */
const KYVERNO_DEFAULTS: IgnoreFieldBinding[] = [
  {
    fields: [
      'metadata.namespace',
      'spec.containers.*.imagePullPolicy',
      'spec.containers.*.terminationMessagePath',
      'spec.containers.*.terminationMessagePolicy',
      'spec.dnsPolicy',
      'spec.restartPolicy',
      'spec.schedulerName',
      'spec.terminationGracePeriodSeconds',
      'metadata.labels.app.kubernetes.io/instance',
      'metadata.managedFields.*',
      'metadata.resourceVersion',
      'metadata.selfLink',
      'metadata.annotations.control-plane.alpha.kubernetes.io/leader',
      'metadata.annotations.kubectl.kubernetes.io/last-applied-configuration',
      'metadata.finalizers*',
      'metadata.annotations.namespace',
      'metadata.annotations.deprecated.daemonset.template.generation',
      'metadata.creationTimestamp',
      'metadata.uid',
      'metadata.generation',
      'status',
      'metadata.annotations.deployment.kubernetes.io/revision',
    ],
    objects: ANY,
  },
  {
    fields: [
      'spec.volumes.*.name',
      'spec.volumes.*.projected.*',
      'spec.volumes.*.configMap.defaultMode',
      'spec.containers.*.volumeMounts.*',
      'spec.tolerations.*',
      'spec.enableServiceLinks',
      'spec.preemptionPolicy',
      'spec.priority',
      'spec.serviceAccount',
    ],
    objects: only('Pod'),
  },
  {
    fields: [
      'spec.progressDeadlineSeconds',
      'spec.revisionHistoryLimit',
      'spec.strategy.*',
      'spec.template.metadata.creationTimestamp',
      'spec.containers.*.ports.*.protocol',
      'spec.containers.*.resources',
      'spec.securityContext',
    ],
    objects: only('Deployment'),
  },
  { fields: ['spec.conversion.strategy', 'spec.names.listKind'], objects: only('CustomResourceDefinition') },
  {
    fields: [
      'spec.ports.*.nodePort',
      'spec.clusterIP',
      'spec.clusterIPs.0',
      'spec.sessionAffinity',
      'spec.type',
      'spec.ipFamilies.*',
      'spec.ipFamilyPolicy',
      'spec.internalTrafficPolicy',
    ],
    objects: only('Service'),
  },
  {
    fields: [
      'metadata.annotations.pod-policies.kyverno.io/autogen-controllers',
      'spec.failurePolicy',
      'spec.background',
      'spec.validationFailureAction',
    ],
    objects: [{ kind: 'ClusterPolicy' }, { kind: 'Policy' }],
  },
  { fields: ['secrets.*.name', 'imagePullSecrets.*.name'], objects: only('ServiceAccount') },
];

/**
 * Everything ignored for a rule, in Kyverno's order: the sigstore defaults, Kyverno's defaults, the
 * rule's `ignoreFields`, then the signature annotations of the rule's annotation domain.
 */
export function ignoreFieldBindings(ruleFields: readonly IgnoreFieldBinding[], domain: string): IgnoreFieldBinding[] {
  const annotationKeys = ['message', 'signature', 'certificate', 'bundle', 'resourceBundleRef'];
  return [
    ...SIGSTORE_DEFAULTS,
    ...KYVERNO_DEFAULTS,
    ...ruleFields,
    { fields: annotationKeys.map((key) => `metadata.annotations.${domain}/${key}*`), objects: ANY },
  ];
}

/** The ignored fields of every binding that applies to `object`. */
export function ignoredFieldsFor(bindings: readonly IgnoreFieldBinding[], object: KubeObject): string[] {
  const reference = referenceOf(object);
  return bindings.filter((binding) => appliesTo(binding.objects, reference)).flatMap((binding) => binding.fields);
}

function appliesTo(objects: readonly ObjectReference[], target: Required<ObjectReference>): boolean {
  if (objects.length === 0) return true;
  return objects.some(
    (o) =>
      matchPattern(o.group, target.group) &&
      matchPattern(o.version, target.version) &&
      matchPattern(o.kind, target.kind) &&
      matchPattern(o.name, target.name) &&
      matchPattern(o.namespace, target.namespace),
  );
}

function referenceOf(object: KubeObject): Required<ObjectReference> {
  const { group, version } = groupVersion(object.apiVersion);
  const metadata = isObject(object.metadata) ? object.metadata : {};
  return {
    group,
    version,
    kind: typeof object.kind === 'string' ? object.kind : '',
    name: typeof metadata.name === 'string' ? metadata.name : '',
    namespace: typeof metadata.namespace === 'string' ? metadata.namespace : '',
  };
}

/** `apps/v1` → apps, v1; `v1` → core; anything with more slashes has no group or version. */
export function groupVersion(apiVersion: unknown): { group: string; version: string } {
  if (typeof apiVersion !== 'string' || apiVersion === '') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return { group: '', version: '' };
}

/**
 * k8s-manifest-sigstore's object pattern: empty or `*` matches all, `-` matches an empty value,
 * a trailing `*` is a prefix match, and a comma separates alternatives.
 */
export function matchPattern(pattern: string | undefined, value: string): boolean {
  const p = (pattern ?? '').trim();
  if (p === '' || p === '*') return true;
  if (p === '-' && value === '') return true;
  if (p.endsWith('*')) return value.startsWith(p.replace(/\*+$/, ''));
  if (p === value) return true;
  if (p.includes(',')) return p.split(',').some((alternative) => matchPattern(alternative.trim(), value));
  return false;
}
