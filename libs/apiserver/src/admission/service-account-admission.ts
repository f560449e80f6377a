/**
 * kube-apiserver's ServiceAccount admission plugin (on by default in kube), for Pods being created:
 * a Pod without `serviceAccountName` runs as `default`; the service account must exist (403
 * otherwise); unless the Pod or the account opts out of automounting, every container and init
 * container without a mount at the token path mounts a projected `kube-api-access-<random>` volume
 * (token, the namespace's `kube-root-ca.crt`, the namespace); a Pod without image pull secrets gets
 * the account's. It runs before the mutating webhooks, as kube's built-in plugins do, so a policy sees
 * the Pod as it would in a cluster. Mirror Pods (static Pods) are left alone.
 */
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import { generatedName } from '../resources/names';
import { ApiError } from '../status';
import type { AdmissionAttributes, AdmissionChain } from './types';

/** Where kube mounts the service account token. */
export const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
const TOKEN_VOLUME_PREFIX = 'kube-api-access-';
const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

/** Reads a service account (undefined when there is none). */
export type ServiceAccountLookup = (namespace: string, name: string) => JsonObject | undefined;

/** The admission chain with the ServiceAccount plugin ahead of the webhooks. */
export function withServiceAccountAdmission(webhooks: AdmissionChain, lookup: ServiceAccountLookup): AdmissionChain {
  return {
    mutate: (attributes, warnings) => {
      const object = admitServiceAccount(attributes, lookup);
      return webhooks.mutate(object === attributes.object ? attributes : { ...attributes, object }, warnings);
    },
    validate: (attributes, warnings) => webhooks.validate(attributes, warnings),
  };
}

/** The Pod as the plugin leaves it; any other request's object unchanged. */
export function admitServiceAccount(
  attributes: AdmissionAttributes,
  lookup: ServiceAccountLookup,
): JsonObject | undefined {
  const pod = attributes.object;
  const { type } = attributes;
  if (!pod || attributes.operation !== 'CREATE' || attributes.subresource !== '') return pod;
  if (type.group !== '' || type.plural !== 'pods') return pod;
  const metadata = isObject(pod.metadata) ? pod.metadata : {};
  if (isObject(metadata.annotations) && metadata.annotations[MIRROR_POD_ANNOTATION] !== undefined) return pod;
  const spec = isObject(pod.spec) ? { ...pod.spec } : {};
  const accountName =
    typeof spec.serviceAccountName === 'string' && spec.serviceAccountName ? spec.serviceAccountName : 'default';
  spec.serviceAccountName = accountName;
  const account = lookup(attributes.namespace, accountName);
  if (!account) {
    const subject = attributes.name ? `pods "${attributes.name}"` : 'pods';
    throw new ApiError(
      403,
      'Forbidden',
      `${subject} is forbidden: error looking up service account ${attributes.namespace}/${accountName}: serviceaccount "${accountName}" not found`,
      { ...(attributes.name ? { name: attributes.name } : {}), kind: 'pods' },
    );
  }
  if (shouldAutomount(spec, account)) mountToken(spec);
  const pullSecrets = Array.isArray(account.imagePullSecrets) ? account.imagePullSecrets : [];
  const own = Array.isArray(spec.imagePullSecrets) ? spec.imagePullSecrets : [];
  if (own.length === 0 && pullSecrets.length > 0) {
    spec.imagePullSecrets = pullSecrets.filter(isObject).map((secret) => ({ name: secret.name ?? '' }));
  }
  return { ...pod, spec };
}

/** The Pod's own setting wins over the account's; both unset means mount. */
function shouldAutomount(spec: JsonObject, account: JsonObject): boolean {
  if (typeof spec.automountServiceAccountToken === 'boolean') return spec.automountServiceAccountToken;
  if (typeof account.automountServiceAccountToken === 'boolean') return account.automountServiceAccountToken;
  return true;
}

function mountToken(spec: JsonObject): void {
  const volumes = Array.isArray(spec.volumes) ? spec.volumes.filter(isObject) : [];
  const existing = volumes.find(
    (volume) => typeof volume.name === 'string' && volume.name.startsWith(TOKEN_VOLUME_PREFIX),
  );
  const volumeName = existing ? String(existing.name) : generatedName(TOKEN_VOLUME_PREFIX);
  let needed = false;
  for (const field of ['initContainers', 'containers']) {
    if (!Array.isArray(spec[field])) continue;
    spec[field] = (spec[field] as JsonValue[]).map((container) => {
      if (!isObject(container)) return container;
      const mounts = Array.isArray(container.volumeMounts) ? container.volumeMounts : [];
      if (mounts.some((mount) => isObject(mount) && mount.mountPath === TOKEN_MOUNT_PATH)) return container;
      needed = true;
      return {
        ...container,
        volumeMounts: [...mounts, { name: volumeName, readOnly: true, mountPath: TOKEN_MOUNT_PATH }],
      };
    });
  }
  if (existing || !needed) return;
  spec.volumes = [
    ...(Array.isArray(spec.volumes) ? spec.volumes : []),
    { name: volumeName, projected: tokenVolumeSource() },
  ];
}

/** kube's projected token volume: a token valid 3607 s, the cluster CA bundle and the namespace. */
function tokenVolumeSource(): JsonObject {
  return {
    defaultMode: 0o644,
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      {
        downwardAPI: {
          items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
        },
      },
    ],
  };
}
