/**
 * The mutable side of the cache: policies and exceptions as the informers report them. Each policy
 * is validated and compiled once per resourceVersion; invalid ones are kept aside with their problems.
 * A policy that decides admission keeps a version in force while its stored version is invalid (its
 * last valid one, else its Enforce validate rules as written; see `enforcement.ts`): the invalid entry
 * says which, and `policies` holds it under the same key until the policy is fixed or deleted.
 * `snapshot()` builds a new immutable {@link PolicySnapshot} after changes (once per batch of changes,
 * on first read) and otherwise returns the same one.
 */
import {
  Engine,
  failurePolicyOf,
  validatePolicy,
  validatePolicyException,
  type Policy,
  type PolicyException,
} from '@edict/engine';
import { isError, wildcardMatch, type Diagnostic, errorMessage } from '@edict/foundation';
import { enforcingValidateRules, holdsWhenInvalid } from './enforcement';
import { PolicySnapshot } from './policy-snapshot';
import { ruleTypesOf } from './rule-facts';
import type { CachedException, CachedPolicy, EnforcedInstead, InvalidPolicy, PolicyRuleType } from './types';

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
    for (const key of new Set([...this.valid.keys(), ...this.invalid.keys()])) {
      const source = this.storedVersion(key)?.source;
      if (source) this.place(key, this.prepare(source, key));
    }
    this.changed();
  }

  /** Adds or replaces a ClusterPolicy or Policy. */
  upsertPolicy(policy: Policy): UpsertResult {
    const key = policyKey(policy);
    const version = policy.metadata?.resourceVersion;
    const known = this.storedVersion(key);
    if (known && version !== undefined && known.resourceVersion === version) return { status: 'unchanged' };
    const result = this.place(key, this.prepare(policy, key));
    this.changed();
    return result;
  }

  /**
   * Puts in force a version another store validated and keeps as the last valid one (a review
   * worker mirroring the main store); the stored version, given next, decides whether it stays.
   */
  restoreLastValid(policy: Policy): void {
    const key = policyKey(policy);
    const inForce = this.valid.get(key);
    if (inForce && this.invalid.get(key)?.enforced?.basis !== 'enforcing-validate-rules') {
      if (inForce.resourceVersion === policy.metadata?.resourceVersion) return;
    }
    const result = this.prepare(policy, key, { validate: false });
    if (result.status !== 'valid') return;
    this.invalid.delete(key);
    this.valid.set(key, result.policy);
    this.changed();
  }

  /** The entry of the version the API server holds now (the invalid one while another is in force). */
  private storedVersion(key: string): CachedPolicy | InvalidPolicy | undefined {
    return this.invalid.get(key) ?? this.valid.get(key);
  }

  /** Puts a prepared version in place; an invalid one keeps a version in force when the policy calls for it. */
  private place(key: string, result: UpsertResult): UpsertResult {
    if (result.status === 'valid') {
      this.invalid.delete(key);
      this.valid.set(key, result.policy);
      return result;
    }
    if (result.status !== 'invalid') return result;
    const enforced = this.enforcedInstead(key, result.invalid);
    const invalid: InvalidPolicy = enforced ? { ...result.invalid, enforced } : result.invalid;
    this.invalid.set(key, invalid);
    if (enforced) this.valid.set(key, enforced.policy);
    else this.valid.delete(key);
    return { status: 'invalid', invalid };
  }

  /**
   * What stays in force for `key` while `invalid` is its stored version: the version in force now when
   * it passed validation and decides admission; otherwise the stored version's Enforce validate rules.
   */
  private enforcedInstead(key: string, invalid: InvalidPolicy): EnforcedInstead | undefined {
    const inForce = this.valid.get(key);
    const lastValid = this.invalid.get(key)?.enforced?.basis === 'enforcing-validate-rules' ? undefined : inForce;
    // A policy deleted and created again under the same name (a missed delete) has no last valid version.
    const uid = invalid.source?.metadata?.uid;
    const sameObject = !uid || !lastValid?.uid || lastValid.uid === uid;
    if (lastValid && sameObject && holdsWhenInvalid(lastValid)) return { basis: 'last-valid', policy: lastValid };
    const rules = invalid.source && enforcingValidateRules(invalid.source);
    if (!rules) return undefined;
    const prepared = this.prepare(rules, key, { validate: false });
    if (prepared.status !== 'valid') return undefined;
    const { source: _cut, ...compiled } = prepared.policy;
    return { basis: 'enforcing-validate-rules', policy: { ...compiled, source: invalid.source! } };
  }

  removePolicy(policy: Pick<Policy, 'kind' | 'metadata'>): boolean {
    const key = policyKey(policy);
    const removedValid = this.valid.delete(key);
    const removedInvalid = this.invalid.delete(key);
    const removed = removedValid || removedInvalid;
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
      problems = [{ file: '', message: `validation failed: ${errorMessage(error)}` }];
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

  /** Validates (unless told not to: a cut-down version of a policy already judged) and compiles. */
  private prepare(policy: Policy, key: string, options: { validate?: boolean } = {}): UpsertResult {
    const base = {
      key,
      source: policy,
      kind: policy.kind,
      name: policy.metadata?.name ?? '',
      ...(policy.kind === 'Policy' ? { namespace: policy.metadata?.namespace ?? 'default' } : {}),
      ...(policy.metadata?.resourceVersion !== undefined ? { resourceVersion: policy.metadata.resourceVersion } : {}),
    };
    let problems: Diagnostic[] = [];
    try {
      if (options.validate !== false)
        problems = validatePolicy(policy, { clusterScopedKinds: this.clusterScopedKinds });
    } catch (error) {
      problems = [{ file: '', message: `validation failed: ${errorMessage(error)}` }];
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
        invalid: { ...base, problems: [...problems, { file: '', message: `compile failed: ${errorMessage(error)}` }] },
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

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}
