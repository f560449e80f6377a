/** The policy cache's content as the admin endpoints show it (plain JSON, no compiled internals). */
import type { Rule } from '@edict/engine';
import type { Diagnostic } from '@edict/foundation';
import type { CachedException, CachedPolicy, InvalidPolicy, PolicySnapshot } from '@edict/policy';
import type {
  ExceptionDto,
  InvalidPolicyDto,
  PolicyCacheStateDto,
  PolicyDetailDto,
  PolicyLookupDto,
  PolicySummaryDto,
  ProblemDto,
  RuleSummaryDto,
} from './policies.dto';

const RULE_TYPES = ['validate', 'mutate', 'generate', 'verifyImages'] as const;

export function policyCacheState(snapshot: PolicySnapshot, synced: boolean): PolicyCacheStateDto {
  return {
    generation: snapshot.generation,
    synced,
    policies: byKey([...snapshot.policies.values()]).map(policySummary),
    invalid: byKey([...snapshot.invalid.values()]).map(invalidPolicy),
    exceptions: byKey([...snapshot.allExceptions.values()]).map(exceptionView),
  };
}

/** One policy by key (`name`, or `namespace/name` for a Policy); undefined when the cache has neither. */
export function policyLookup(snapshot: PolicySnapshot, key: string): PolicyLookupDto | undefined {
  const loaded = snapshot.policies.get(key);
  if (loaded) return { status: 'loaded', loaded: policyDetail(loaded) };
  const invalid = snapshot.invalid.get(key);
  if (invalid) return { status: 'invalid', invalid: invalidPolicy(invalid) };
  return undefined;
}

export function policySummary(cached: CachedPolicy): PolicySummaryDto {
  const spec = cached.compiled.policy.spec;
  return {
    key: cached.key,
    kind: cached.kind,
    name: cached.name,
    ...(cached.namespace ? { namespace: cached.namespace } : {}),
    ...(cached.uid ? { uid: cached.uid } : {}),
    ...(cached.resourceVersion ? { resourceVersion: cached.resourceVersion } : {}),
    failurePolicy: cached.failurePolicy,
    admission: cached.admission,
    background: spec.background !== false,
    ...(typeof spec.validationFailureAction === 'string'
      ? { validationFailureAction: spec.validationFailureAction }
      : {}),
    ruleTypes: [...cached.ruleTypes],
    rules: (spec.rules ?? []).map(ruleSummary),
    warnings: cached.warnings.map(problem),
  };
}

export function policyDetail(cached: CachedPolicy): PolicyDetailDto {
  const { metadata, spec } = cached.compiled.policy;
  return {
    ...policySummary(cached),
    policy: { apiVersion: cached.compiled.policy.apiVersion, kind: cached.kind, metadata, spec },
  };
}

function ruleSummary(rule: Rule): RuleSummaryDto {
  return {
    name: rule.name,
    types: RULE_TYPES.filter((type) => rule[type] !== undefined),
    autogen: rule.name.startsWith('autogen-'),
  };
}

function invalidPolicy(invalid: InvalidPolicy): InvalidPolicyDto {
  return {
    key: invalid.key,
    kind: invalid.kind,
    name: invalid.name,
    ...(invalid.namespace ? { namespace: invalid.namespace } : {}),
    ...(invalid.resourceVersion ? { resourceVersion: invalid.resourceVersion } : {}),
    problems: invalid.problems.map(problem),
    ...(invalid.enforced
      ? {
          enforced: {
            basis: invalid.enforced.basis,
            ...(invalid.enforced.policy.resourceVersion
              ? { resourceVersion: invalid.enforced.policy.resourceVersion }
              : {}),
          },
        }
      : {}),
  };
}

function exceptionView(cached: CachedException): ExceptionDto {
  const { metadata, spec } = cached.exception;
  return {
    key: cached.key,
    name: metadata.name,
    ...(metadata.namespace ? { namespace: metadata.namespace } : {}),
    used: cached.used,
    exceptions: (spec?.exceptions ?? []).map((entry) => ({
      policyName: entry.policyName,
      ruleNames: [...(entry.ruleNames ?? [])],
    })),
    problems: cached.problems.map(problem),
  };
}

function problem(diagnostic: Diagnostic): ProblemDto {
  return {
    severity: diagnostic.severity ?? 'error',
    ...(diagnostic.path ? { path: diagnostic.path } : {}),
    message: diagnostic.message,
  };
}

function byKey<T extends { key: string }>(items: T[]): T[] {
  return items.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
