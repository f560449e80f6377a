import { forbidden, type FieldError } from '../field-error';
import { goQuote } from '@edict/foundation';
import { joinQuote, pluralize, sortedSet } from '../go-text';
import type { PodModel } from '../model';
import { type CheckDefinition, type CheckFailure, visitContainers } from './types';

const ANNOTATION_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

function allowedProfileType(type: string): boolean {
  return type === 'RuntimeDefault' || type === 'Localhost';
}

function allowedAnnotationValue(value: string): boolean {
  return value === '' || value === 'runtime/default' || value.startsWith('localhost/');
}

/** Baseline: AppArmor may not be disabled or overridden (fields and the deprecated beta annotations). */
function appArmorProfileV1Dot0(pod: PodModel): CheckFailure | undefined {
  const setters: string[] = [];
  const badTypes: string[] = [];
  const errors: FieldError[] = [];
  const podProfile = pod.securityContext?.appArmorProfile;
  if (podProfile && !allowedProfileType(podProfile.type)) {
    setters.push('pod');
    badTypes.push(podProfile.type);
    errors.push(forbidden('spec.securityContext.appArmorProfile.type', podProfile.type));
  }
  const names: string[] = [];
  for (const { container, path } of visitContainers(pod)) {
    const profile = container.securityContext?.appArmorProfile;
    if (!profile || allowedProfileType(profile.type)) continue;
    names.push(container.name);
    badTypes.push(profile.type);
    errors.push(forbidden(`${path}.securityContext.appArmorProfile.type`, profile.type));
  }
  if (names.length > 0) setters.push(`${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`);

  // Go iterates the annotation map in random order; sorting keeps our output stable.
  const badAnnotations = Object.keys(pod.annotations)
    .filter((key) => key.startsWith(ANNOTATION_PREFIX) && !allowedAnnotationValue(pod.annotations[key] ?? ''))
    .sort();
  const badValues = sortedSet(badTypes);
  if (badAnnotations.length > 0) {
    setters.push(pluralize('annotation', 'annotations', badAnnotations.length));
    for (const key of badAnnotations) {
      const value = pod.annotations[key] ?? '';
      badValues.push(`${key}=${goQuote(value)}`);
      errors.push(forbidden(`metadata.annotations[${key}]`, value));
    }
  }
  if (setters.length === 0) return undefined;
  return {
    reason: pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', badValues.length),
    detail: `${setters.join(' and ')} must not set AppArmor profile type to ${joinQuote(badValues)}`,
    errors,
  };
}

export const appArmorProfileCheck: CheckDefinition = {
  id: 'appArmorProfile',
  level: 'baseline',
  versions: [{ minor: 0, run: appArmorProfileV1Dot0 }],
};
