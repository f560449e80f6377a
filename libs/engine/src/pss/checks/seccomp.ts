import { forbidden, required, type FieldError } from '../field-error';
import { goQuote } from '@edict/foundation';
import { joinQuote, pluralize, sortedSet } from '../go-text';
import type { PodModel } from '../model';
import { type CheckDefinition, type CheckFailure, isWindowsPod, visitContainers } from './types';

const POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
const CONTAINER_ANNOTATION_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';
const POD_TYPE_FIELD = 'spec.securityContext.seccompProfile.type';

function validType(type: string): boolean {
  return type === 'RuntimeDefault' || type === 'Localhost';
}

function validAnnotationValue(value: string): boolean {
  return value === 'runtime/default' || value === 'docker/default' || value.startsWith('localhost/');
}

/** Baseline before v1.19: the alpha seccomp annotations must not select an unconfined profile. */
function seccompBaselineV1Dot0(pod: PodModel): CheckFailure | undefined {
  const found: { key: string; value: string }[] = [];
  const podValue = pod.annotations[POD_ANNOTATION];
  if (podValue !== undefined && podValue !== null && !validAnnotationValue(podValue))
    found.push({ key: POD_ANNOTATION, value: podValue });
  for (const { container } of visitContainers(pod)) {
    const key = `${CONTAINER_ANNOTATION_PREFIX}${container.name}`;
    const value = pod.annotations[key];
    if (value !== undefined && value !== null && !validAnnotationValue(value)) found.push({ key, value });
  }
  if (found.length === 0) return undefined;
  const texts = sortedSet(found.map(({ key, value }) => `${key}=${goQuote(value)}`));
  return {
    reason: 'seccompProfile',
    detail: `forbidden ${pluralize('annotation', 'annotations', texts.length)} ${texts.join(', ')}`,
    errors: found.map(({ key, value }) => forbidden(`metadata.annotations[${key}]`, value)),
  };
}

/** Explicitly set profiles (pod, then containers) that are neither RuntimeDefault nor Localhost. */
function explicitViolations(pod: PodModel) {
  const setters: string[] = [];
  const badTypes: string[] = [];
  const errors: FieldError[] = [];
  const podProfile = pod.securityContext?.seccompProfile;
  if (podProfile && !validType(podProfile.type)) {
    setters.push('pod');
    badTypes.push(podProfile.type);
    errors.push(forbidden(POD_TYPE_FIELD, podProfile.type));
  }
  const names: string[] = [];
  for (const { container, path } of visitContainers(pod)) {
    const profile = container.securityContext?.seccompProfile;
    if (!profile || validType(profile.type)) continue;
    names.push(container.name);
    badTypes.push(profile.type);
    errors.push(forbidden(`${path}.securityContext.seccompProfile.type`, profile.type));
  }
  if (names.length > 0) setters.push(`${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`);
  const detail =
    setters.length > 0
      ? `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(badTypes))}`
      : undefined;
  return { detail, errors };
}

/** Baseline from v1.19: an explicitly set seccomp profile must not be Unconfined. */
function seccompBaselineV1Dot19(pod: PodModel): CheckFailure | undefined {
  const { detail, errors } = explicitViolations(pod);
  return detail ? { reason: 'seccompProfile', detail, errors } : undefined;
}

/** Restricted from v1.19: every container must end up with RuntimeDefault or Localhost (pod-level default counts). */
function seccompRestrictedV1Dot19(pod: PodModel): CheckFailure | undefined {
  const explicit = explicitViolations(pod);
  const podProfile = pod.securityContext?.seccompProfile;
  const podSet = podProfile !== undefined && validType(podProfile.type);
  const implicit: string[] = [];
  const implicitErrors: FieldError[] = [];
  if (!podSet) {
    for (const { container, path } of visitContainers(pod)) {
      if (container.securityContext?.seccompProfile) continue;
      implicit.push(container.name);
      implicitErrors.push(required(`${path}.securityContext.seccompProfile.type`));
    }
  }
  const details: string[] = [];
  if (explicit.detail) details.push(explicit.detail);
  if (implicit.length > 0) {
    details.push(
      `pod or ${pluralize('container', 'containers', implicit.length)} ${joinQuote(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
    );
  }
  if (details.length === 0) return undefined;
  return { reason: 'seccompProfile', detail: details.join('\n'), errors: [...explicit.errors, ...implicitErrors] };
}

/** From v1.25 Windows pods are exempt. */
function seccompRestrictedV1Dot25(pod: PodModel): CheckFailure | undefined {
  return isWindowsPod(pod) ? undefined : seccompRestrictedV1Dot19(pod);
}

export const seccompProfileBaselineCheck: CheckDefinition = {
  id: 'seccompProfile_baseline',
  level: 'baseline',
  versions: [
    { minor: 0, run: seccompBaselineV1Dot0 },
    { minor: 19, run: seccompBaselineV1Dot19 },
  ],
};

export const seccompProfileRestrictedCheck: CheckDefinition = {
  id: 'seccompProfile_restricted',
  level: 'restricted',
  versions: [
    { minor: 19, run: seccompRestrictedV1Dot19 },
    { minor: 25, run: seccompRestrictedV1Dot25 },
  ],
};
