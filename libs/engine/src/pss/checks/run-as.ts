import { forbidden, required, type FieldError } from '../field-error';
import { joinQuote, pluralize } from '../go-text';
import type { PodModel } from '../model';
import { type CheckDefinition, type CheckFailure, inUserNamespace, visitContainers } from './types';

/** Restricted: runAsNonRoot must be true, at pod level or on every container. */
function runAsNonRootV1Dot0(pod: PodModel): CheckFailure | undefined {
  const setters: string[] = [];
  const explicitErrors: FieldError[] = [];
  const podValue = pod.securityContext?.runAsNonRoot;
  if (podValue === false) {
    setters.push('pod');
    explicitErrors.push(forbidden('spec.securityContext.runAsNonRoot', false));
  }
  const explicit: string[] = [];
  const implicit: string[] = [];
  const implicitErrors: FieldError[] = [];
  const containerErrors: FieldError[] = [];
  for (const { container, path } of visitContainers(pod)) {
    const value = container.securityContext?.runAsNonRoot;
    if (value === false) {
      explicit.push(container.name);
      containerErrors.push(forbidden(`${path}.securityContext.runAsNonRoot`, false));
    } else if (value === undefined && podValue !== true) {
      implicit.push(container.name);
      implicitErrors.push(required(`${path}.securityContext.runAsNonRoot`));
    }
  }
  if (explicit.length > 0) {
    setters.push(`${pluralize('container', 'containers', explicit.length)} ${joinQuote(explicit)}`);
    explicitErrors.push(...containerErrors);
  }
  // The fork reports both kinds of violation at once (upstream stops at the explicit ones).
  const details: string[] = [];
  if (setters.length > 0) details.push(`${setters.join(' and ')} must not set securityContext.runAsNonRoot=false`);
  if (implicit.length > 0) {
    details.push(
      `pod or ${pluralize('container', 'containers', implicit.length)} ${joinQuote(implicit)} must set securityContext.runAsNonRoot=true`,
    );
  }
  if (details.length === 0) return undefined;
  return { reason: 'runAsNonRoot != true', detail: details.join('\n'), errors: [...explicitErrors, ...implicitErrors] };
}

/** Restricted: neither the pod nor any container may set runAsUser=0. */
function runAsUserV1Dot23(pod: PodModel): CheckFailure | undefined {
  const setters: string[] = [];
  const errors: FieldError[] = [];
  if (pod.securityContext?.runAsUser === 0) {
    setters.push('pod');
    errors.push(forbidden('spec.securityContext.runAsUser', 0));
  }
  const names: string[] = [];
  for (const { container, path } of visitContainers(pod)) {
    if (container.securityContext?.runAsUser !== 0) continue;
    names.push(container.name);
    errors.push(forbidden(`${path}.securityContext.runAsUser`, 0));
  }
  if (names.length > 0) setters.push(`${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`);
  if (setters.length === 0) return undefined;
  return { reason: 'runAsUser=0', detail: `${setters.join(' and ')} must not set runAsUser=0`, errors };
}

/** From v1.35 both checks are relaxed for pods in a user namespace (KEP-127). */
export const runAsNonRootCheck: CheckDefinition = {
  id: 'runAsNonRoot',
  level: 'restricted',
  versions: [
    { minor: 0, run: runAsNonRootV1Dot0 },
    { minor: 35, run: (pod) => (inUserNamespace(pod) ? undefined : runAsNonRootV1Dot0(pod)) },
  ],
};

export const runAsUserCheck: CheckDefinition = {
  id: 'runAsUser',
  level: 'restricted',
  versions: [
    { minor: 23, run: runAsUserV1Dot23 },
    { minor: 35, run: (pod) => (inUserNamespace(pod) ? undefined : runAsUserV1Dot23(pod)) },
  ],
};
