/**
 * What the generate and mutate-existing handlers share: their dependencies (ports, typed fakes in
 * specs), what one rule context's work came to, and the policy narrowed to the one rule a request
 * names (so the engine evaluates nothing else).
 */
import type { UpdateRequestResourceSpec } from '@edict/admission';
import type { CompiledPolicy, Engine, Rule } from '@edict/engine';
import type { EventInput } from '@edict/kube';
import type { CachedPolicy } from '@edict/policy';
import type { BackgroundEventSource, PolicyIdentity } from '../events/background-events';
import type { AppliedRule } from '../reports/trigger-report';
import type { ClusterObjects } from './cluster-objects';

export interface RuleWorkDeps {
  readonly engine: Pick<Engine, 'generate' | 'mutate'>;
  readonly cluster: ClusterObjects;
  /** The labels of a namespace, for namespaceSelector (undefined for cluster-scoped triggers). */
  namespaceLabels(namespace: string | undefined): Promise<Record<string, string> | undefined>;
  /** Records an Event under its source (`kyverno-generate`, `kyverno-mutate`); omitted reasons are dropped. */
  emit(source: BackgroundEventSource, event: EventInput): void;
  /** The ConfigMap's `generateSuccessEvents`: whether generate emits its PolicyApplied events. */
  generateSuccessEvents(): boolean;
  /** Reports what a rule applied to its trigger came to (Kyverno's background report); never throws. */
  report(applied: AppliedRule): Promise<void>;
}

export interface RuleWorkOutcome {
  /** Why the rule's work failed (the request is retried); undefined when it is done. */
  readonly error?: string;
  /** Objects a generate rule created. */
  readonly generated: UpdateRequestResourceSpec[];
}

export const done = (generated: UpdateRequestResourceSpec[] = []): RuleWorkOutcome => ({ generated });
export const failed = (error: string, generated: UpdateRequestResourceSpec[] = []): RuleWorkOutcome => ({
  error,
  generated,
});

/** The policy with only `rule` left in the given family. */
export function onlyRule(
  compiled: CompiledPolicy,
  family: 'generateRules' | 'mutateRules',
  rule: Rule,
): CompiledPolicy {
  return { ...compiled, validateRules: [], mutateRules: [], generateRules: [], imageVerifyRules: [], [family]: [rule] };
}

export function policyIdentity(cached: CachedPolicy): PolicyIdentity {
  return {
    kind: cached.kind,
    name: cached.name,
    ...(cached.namespace ? { namespace: cached.namespace } : {}),
    ...(cached.uid ? { uid: cached.uid } : {}),
  };
}
