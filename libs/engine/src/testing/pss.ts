/** Builders for the PSS specs (test-only helpers). */
import type { JsonObject, KubeObject } from '@edict/foundation';
import type { PodSecurity } from '../policy/types';

/** A pod that satisfies the restricted profile; override parts to break one control at a time. */
export function restrictedContainer(name = 'app', image = 'nginx:1.27', extra: JsonObject = {}): JsonObject {
  return {
    name,
    image,
    securityContext: {
      allowPrivilegeEscalation: false,
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
      capabilities: { drop: ['ALL'] },
    },
    ...extra,
  };
}

export function pod(spec: JsonObject, metadata: JsonObject = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', ...metadata }, spec };
}

/** A pod whose only container has the given securityContext (and nothing else). */
export function podWithContainerSecurity(securityContext: JsonObject, extra: JsonObject = {}): KubeObject {
  return pod({ containers: [{ name: 'app', image: 'nginx', securityContext, ...extra }] });
}

export function baseline(version = 'latest', exclude?: PodSecurity['exclude']): PodSecurity {
  return exclude ? { level: 'baseline', version, exclude } : { level: 'baseline', version };
}

export function restricted(version = 'latest', exclude?: PodSecurity['exclude']): PodSecurity {
  return exclude ? { level: 'restricted', version, exclude } : { level: 'restricted', version };
}
