/**
 * The mutable side of the cache: policies and exceptions as the informers report them. Each policy
 * is validated and compiled once per resourceVersion; invalid ones are kept aside with their problems.
 * `snapshot()` builds a new immutable {@link PolicySnapshot} after changes (once per batch of changes,
 * on first read) and otherwise returns the same one.
 */
import {
  Engine,
  failurePolicyOf,
  isError,
  validatePolicy,
  validatePolicyException,
  wildcardMatch,
  type Diagnostic,
  type Policy,
  type PolicyException,
} from '@edict/engine';
import { PolicySnapshot } from './policy-snapshot';
import { ruleTypesOf } from './rule-facts';
import type { CachedException, CachedPolicy, InvalidPolicy, PolicyRuleType } from './types';

export interface PolicyStoreOptions {
  /**
   * Namespaces exceptions are used from (`*`/`?` wildcards). Absent or empty: none — PolicyExceptions
   * are off until namespaces are named (Kyverno fixed GO-2024-3230 the same way).
   */
  readonly exceptionNamespaces?: readonly string[];
  readonly clusterScopedKinds?: readonly string[];
  /** Compiles policies (default: a dependency-free `Engine`). */
  readonly engine?: Pick<Engine, 'compile'>;
}

/** What the store judges policies and exceptions by, besides the objects themselves. */
export interface PolicyStoreSettings {
  readonly exceptionNamespaces: readonly string[];
  readonly clusterScopedKinds: readonly string[];
}

export type UpsertResult =
  | { readonly status: 'valid'; readonly policy: CachedPolicy }
  | { readonly status: 'invalid'; readonly invalid: InvalidPolicy }
  | { readonly status: 'unchanged' };

export class PolicyStore {
  private readonly valid = new Map<string, CachedPolicy>();
  private readonly invalid = new Map<string, InvalidPolicy>();
  private readonly exceptions = new Map<string, CachedException>();
  private readonly engine: Pick<Engine, 'compile'>;
  private generation = 0;
  private current: PolicySnapshot = PolicySnapshot.empty();
  private dirty = false;
  private exceptionNamespaces: readonly string[];
  private clusterScopedKinds: readonly string[];

  constructor(options: PolicyStoreOptions = {}) {
    this.engine = options.engine ?? new Engine();
    this.exceptionNamespaces = options.exceptionNamespaces ?? [];
    this.clusterScopedKinds = options.clusterScopedKinds ?? [];
  }

  settings(): PolicyStoreSettings {
    return { exceptionNamespaces: this.exceptionNamespaces, clusterScopedKinds: this.clusterScopedKinds };
  }

  /** Replaces the exception namespaces (the ConfigMap changed) and re-judges every stored exception. */
  setExceptionNamespaces(patterns: readonly string[]): void {
    if (sameList(patterns, this.exceptionNamespaces)) return;
    this.exceptionNamespaces = [...patterns];
    for (const { exception } of [...this.exceptions.values()]) this.upsertException(exception);
    this.changed();
  }

  /**
   * The cluster-scoped custom kinds changed (a CRD came or went): every policy is validated again,
   * as whether a kind is cluster-scoped decides some checks (a generate target's namespace).
   */
  setClusterScopedKinds(kinds: readonly string[]): void {
    if (sameList(kinds, this.clusterScopedKinds)) return;
    this.clusterScopedKinds = [...kinds];
    for (const { key, source } of [...this.valid.values(), ...this.invalid.values()]) {
      if (source) this.place(key, this.prepare(source, key));
    }
    this.changed();
  }

  /** Adds or replaces a ClusterPolicy or Policy. */
  upsertPolicy(policy: Policy): UpsertResult {
    const key = policyKey(policy);
    const version = policy.metadata?.resourceVersion;
    const known = this.valid.get(key) ?? this.invalid.get(key);
    if (known && version !== undefined && known.resourceVersion === version) return { status: 'unchanged' };
    const result = this.prepare(policy, key);
    this.place(key, result);
    this.changed();
    return result;
  }

  private place(key: string, result: UpsertResult): void {
    this.valid.delete(key);
    this.invalid.delete(key);
    if (result.status === 'valid') this.valid.set(key, result.policy);
    else if (result.status === 'invalid') this.invalid.set(key, result.invalid);
  }

  removePolicy(policy: Pick<Policy, 'kind' | 'metadata'>): boolean {
    const key = policyKey(policy);
    const removed = this.valid.delete(key) || this.invalid.delete(key);
    if (removed) this.changed();
    return removed;
  }

  upsertException(exception: PolicyException): CachedException {
    const key = objectKeyOf(exception.metadata);
    const namespace = exception.metadata?.namespace ?? '';
    const allowed = this.exceptionNamespaces;
    const used = allowed.some((pattern) => wildcardMatch(pattern, namespace));
    let problems: Diagnostic[];
    try {
      problems = validatePolicyException(exception, { allowedNamespaces: allowed, enabled: allowed.length > 0 });
    } catch (error) {
      problems = [{ file: '', message: `validation failed: ${messageOf(error)}` }];
    }
    const cached: CachedException = { key, exception, used, problems };
    this.exceptions.set(key, cached);
    this.changed();
    return cached;
  }

  removeException(exception: Pick<PolicyException, 'metadata'>): boolean {
    const removed = this.exceptions.delete(objectKeyOf(exception.metadata));
    if (removed) this.changed();
    return removed;
  }

  /** The current snapshot (rebuilt here if anything changed since the last one). */
  snapshot(): PolicySnapshot {
    if (this.dirty) {
      this.dirty = false;
      this.current = new PolicySnapshot(
        new Map(this.valid),
        new Map(this.invalid),
        new Map(this.exceptions),
        this.generation,
      );
    }
    return this.current;
  }

  private changed(): void {
    this.generation += 1;
    this.dirty = true;
  }

  private prepare(policy: Policy, key: string): UpsertResult {
    const base = {
      key,
      source: policy,
      kind: policy.kind,
      name: policy.metadata?.name ?? '',
      ...(policy.kind === 'Policy' ? { namespace: policy.metadata?.namespace ?? 'default' } : {}),
      ...(policy.metadata?.resourceVersion !== undefined ? { resourceVersion: policy.metadata.resourceVersion } : {}),
    };
    let problems: Diagnostic[];
    try {
      problems = validatePolicy(policy, { clusterScopedKinds: this.clusterScopedKinds });
    } catch (error) {
      problems = [{ file: '', message: `validation failed: ${messageOf(error)}` }];
    }
    if (problems.some(isError)) return { status: 'invalid', invalid: { ...base, problems } };
    try {
      const compiled = this.engine.compile(policy);
      const ruleTypes = new Set<PolicyRuleType>(compiled.policy.spec.rules.flatMap(ruleTypesOf));
      const failurePolicy = failurePolicyOf(policy);
      return {
        status: 'valid',
        policy: {
          ...base,
          ...(policy.metadata?.uid ? { uid: policy.metadata.uid } : {}),
          compiled,
          failurePolicy,
          admission: policy.spec.admission !== false,
          ruleTypes,
          warnings: problems,
        },
      };
    } catch (error) {
      return {
        status: 'invalid',
        invalid: { ...base, problems: [...problems, { file: '', message: `compile failed: ${messageOf(error)}` }] },
      };
    }
  }
}

/** `name` for a ClusterPolicy, `namespace/name` for a Policy (the engine's `CompiledPolicy.key`). */
export function policyKey(policy: Pick<Policy, 'kind' | 'metadata'>): string {
  if (policy.kind === 'Policy') return `${policy.metadata?.namespace || 'default'}/${policy.metadata?.name ?? ''}`;
  return policy.metadata?.name ?? '';
}

function objectKeyOf(metadata: { name?: string; namespace?: string } | undefined): string {
  return metadata?.namespace ? `${metadata.namespace}/${metadata.name ?? ''}` : (metadata?.name ?? '');
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}
