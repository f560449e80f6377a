/**
 * What a cleanup policy must satisfy to be admitted: a cron schedule Kyverno accepts, match and
 * exclude as for rules (kinds, selectors, a namespaced policy stays in its namespace), known
 * condition operators, and context entries of the kinds a cleanup run can load (apiCall to the API
 * server or a service, variable). Kyverno refuses configMap and imageRegistry entries (its reason
 * is kept); global context entries are refused too, as cleanup runs cannot read them yet.
 */
import type { Diagnostic } from '@edict/foundation';
import { checkConditions } from '../policy-validation/conditions';
import { RESERVED_CONTEXT_NAMES } from '../policy-validation/context-entries';
import { Findings, objectLabel } from '../policy-validation/findings';
import { DEFAULT_CLUSTER_SCOPED_KINDS } from '../policy-validation/kinds';
import { checkMatchResources, isEmptyDescription, hasAnyOrAll } from '../policy-validation/match';
import { DELETION_PROPAGATION_POLICIES, type CleanupPolicy } from './cleanup-policy';
import { cronScheduleProblem } from './cron-schedule';

export interface CleanupValidationOptions {
  /** Cluster-scoped kinds besides the built-in ones (the admission controller passes its CRDs'). */
  clusterScopedKinds?: Iterable<string>;
  file?: string;
}

/** Context sources a cleanup run loads. */
const SUPPORTED_CONTEXT_SOURCES = ['apiCall', 'variable'] as const;
/** The others, with why each is refused (Kyverno's reason for the first two). */
const REFUSED_CONTEXT_SOURCES = {
  configMap: 'ConfigMap is not allowed in CleanUp Policy',
  imageRegistry: 'ImageRegistry is not allowed in CleanUp Policy',
  globalReference: "globalReference is not supported in cleanup policies' context yet (apiCall and variable are)",
} as const;

export function validateCleanupPolicy(policy: CleanupPolicy, options: CleanupValidationOptions = {}): Diagnostic[] {
  const kind = policy.kind ?? 'ClusterCleanupPolicy';
  const findings = new Findings({
    file: options.file ?? '',
    object: objectLabel(kind, policy.metadata?.name, 'ClusterCleanupPolicy'),
  });
  const spec = policy.spec;
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) {
    findings.error(['spec'], 'Required value: a cleanup policy needs a spec');
    return findings.diagnostics;
  }
  const scope = {
    namespaced: kind === 'CleanupPolicy',
    clusterKinds: new Set([...DEFAULT_CLUSTER_SCOPED_KINDS, ...(options.clusterScopedKinds ?? [])]),
    findings,
  };
  const problem = typeof spec.schedule === 'string' ? cronScheduleProblem(spec.schedule) : 'a schedule is required';
  if (problem)
    findings.error(['spec', 'schedule'], `invalid cron schedule ${JSON.stringify(spec.schedule ?? '')}: ${problem}`);
  if (
    spec.deletionPropagationPolicy !== undefined &&
    !(DELETION_PROPAGATION_POLICIES as readonly string[]).includes(spec.deletionPropagationPolicy)
  ) {
    findings.error(
      ['spec', 'deletionPropagationPolicy'],
      `must be one of ${DELETION_PROPAGATION_POLICIES.join(', ')}, got ${JSON.stringify(spec.deletionPropagationPolicy)}`,
    );
  }
  const match = spec.match;
  if (!match || (!hasAnyOrAll(match) && isEmptyDescription(match.resources))) {
    findings.error(['spec', 'match'], 'Required value: match must select resources (any, all or resources)');
  } else {
    checkMatchResources(match, ['spec', 'match'], scope);
  }
  if (spec.exclude) checkMatchResources(spec.exclude, ['spec', 'exclude'], scope);
  checkConditions(spec.conditions, ['spec', 'conditions'], findings, { values: true, deprecation: false });
  (spec.context ?? []).forEach((entry, i) => {
    const at = ['spec', 'context', i];
    if (!entry || typeof entry.name !== 'string' || entry.name === '') {
      findings.error([...at, 'name'], 'a name is required for context entries');
      return;
    }
    const reserved = [...RESERVED_CONTEXT_NAMES, 'target'].find(
      (r) => entry.name === r || entry.name.startsWith(`${r}.`),
    );
    if (reserved)
      findings.error([...at, 'name'], `entry name ${entry.name} conflicts with the pre-defined variable ${reserved}`);
    const refused = (Object.keys(REFUSED_CONTEXT_SOURCES) as Array<keyof typeof REFUSED_CONTEXT_SOURCES>).find(
      (source) => entry[source] !== undefined,
    );
    if (refused) {
      findings.error([...at, refused], REFUSED_CONTEXT_SOURCES[refused]);
    } else if (!SUPPORTED_CONTEXT_SOURCES.some((source) => entry[source] !== undefined)) {
      findings.error(at, `context entry ${entry.name} needs one of ${SUPPORTED_CONTEXT_SOURCES.join(', ')}`);
    }
  });
  return findings.diagnostics;
}
