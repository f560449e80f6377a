import type { PolicyException } from '../policy';
import { type Diagnostic, wildcardMatch } from '@edict/foundation';
import { Findings, objectLabel } from './findings';
import { checkMatchResources } from './match';
import { checkExclude } from './pod-security';
import { exceptionWrongTypes } from './wrong-types';

export interface ExceptionValidationOptions {
  /** Namespaces exceptions are accepted from (Kyverno's `--exceptionNamespace`); empty or absent means any. */
  allowedNamespaces?: readonly string[];
  /** Whether the PolicyException feature is enabled (Kyverno's `--enablePolicyException`); default true. */
  enabled?: boolean;
  file?: string;
}

/**
 * What Kyverno's webhook checks when a PolicyException is admitted. A namespace outside the
 * configured ones, or the feature being off, is only a warning: the exception is stored but not used.
 */
export function validatePolicyException(
  exception: PolicyException,
  options: ExceptionValidationOptions = {},
): Diagnostic[] {
  const findings = new Findings({
    file: options.file ?? '',
    object: objectLabel('PolicyException', exception.metadata?.name, 'PolicyException'),
  });
  if (exceptionWrongTypes(exception, findings)) return findings.diagnostics;
  const namespace = exception.metadata?.namespace ?? '';
  const allowed = options.allowedNamespaces ?? [];
  if (options.enabled === false) {
    findings.warning([], 'PolicyException resources would not be processed until it is enabled.');
  } else if (allowed.length > 0 && !allowed.some((pattern) => wildcardMatch(pattern, namespace))) {
    findings.warning(['metadata', 'namespace'], 'PolicyException resource namespace must match the defined namespace.');
  }
  const spec = exception.spec ?? ({} as PolicyException['spec']);
  const match = spec.match ?? {};
  if (spec.background !== false) {
    const noUserInfo = (
      u: { roles?: unknown[]; clusterRoles?: unknown[]; subjects?: unknown[] },
      path: (string | number)[],
    ) => {
      for (const field of ['roles', 'clusterRoles', 'subjects'] as const) {
        if ((u[field]?.length ?? 0) > 0) findings.error([...path, field], 'Usage of user info is forbidden');
      }
    };
    for (const key of ['any', 'all'] as const)
      (match[key] ?? []).forEach((f, i) => noUserInfo(f, ['spec', 'match', key, i]));
    noUserInfo(match, ['spec', 'match']);
  }
  checkMatchResources(match, ['spec', 'match'], { namespaced: false, clusterKinds: new Set(), findings });
  (spec.exceptions ?? []).forEach((entry, i) => {
    if (!entry?.policyName)
      findings.error(['spec', 'exceptions', i, 'policyName'], 'Required value: An exception requires a policy name');
  });
  (spec.podSecurity ?? []).forEach((exclude, i) => checkExclude(exclude, ['spec', 'podSecurity', i], findings));
  return findings.diagnostics;
}
