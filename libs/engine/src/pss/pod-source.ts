import { isObject, type JsonValue, type KubeObject } from '@edict/foundation';
import { PodSecurityError, RESOURCE_ERROR_PREFIX } from './errors';
import type { PodModel } from './model';
import { readPodModel } from './pod-model';
import { POD_CONTROLLERS } from '../policy/autogen';

/** Kinds whose pod lives at `spec.template` (the same list Kyverno's podSecurity handler uses). */
export const TEMPLATE_KINDS: ReadonlySet<string> = new Set(POD_CONTROLLERS.filter((kind) => kind !== 'CronJob'));

function child(value: JsonValue | undefined, key: string): JsonValue | undefined {
  return isObject(value) ? value[key] : undefined;
}

/**
 * Extracts the pod (metadata and spec) that Kyverno evaluates for a resource. Note Kyverno's
 * choice for CronJob: the metadata is the *job* template's (`spec.jobTemplate.metadata`), not the
 * pod template's, so pod-template annotations of a CronJob are not seen.
 */
export function podFromResource(resource: KubeObject): PodModel {
  const kind = resource.kind;
  if (kind === 'Pod') {
    return readPodModel(resource.metadata, resource.spec, { metadataPath: 'metadata', specPath: 'spec' });
  }
  if (TEMPLATE_KINDS.has(kind)) {
    const template = child(resource.spec, 'template');
    return readPodModel(child(template, 'metadata'), child(template, 'spec'), {
      metadataPath: 'spec.template.metadata',
      specPath: 'spec.template.spec',
    });
  }
  if (kind === 'CronJob') {
    const jobTemplate = child(resource.spec, 'jobTemplate');
    const podTemplate = child(child(jobTemplate, 'spec'), 'template');
    return readPodModel(child(jobTemplate, 'metadata'), child(podTemplate, 'spec'), {
      metadataPath: 'spec.jobTemplate.metadata',
      specPath: 'spec.jobTemplate.spec.template.spec',
    });
  }
  throw new PodSecurityError(RESOURCE_ERROR_PREFIX, 'could not find correct resource type');
}
