/**
 * Kyverno's policy metrics controller (pkg/controllers/metrics/policy), run by the admission
 * controller, on the admission metrics' registry:
 *  - `kyverno_policy_rule_info_total` (a gauge read at scrape): 1 per rule of every ClusterPolicy
 *    and Policy in the cluster, autogen rules included, with its policy's labels and readiness;
 *  - `kyverno_policy_changes_total`: policies created, updated (their spec changed) and deleted, as
 *    the policy informer sees them (its first list counts as created, as Kyverno's does);
 *  - `kyverno_policy_exception_info` (read at scrape, as Kyverno's policy exception metrics controller): 1 per
 *    PolicyException (kyverno.io and policies.kyverno.io) and each distinct policy it names; `policy_kind`
 *    is `ClusterPolicy`, or `Policy` for a `namespace/name` reference (a CEL exception's: the reference's
 *    kind); an exception naming none gives one series with both empty;
 *  - `kyverno_legacy_policies_total` (read at scrape, as Kyverno's legacy policy metrics controller): how many
 *    ClusterPolicies, Policies and kyverno.io PolicyExceptions the cluster holds, by kind (the legacy
 *    kinds this controller watches; Kyverno's cleanup controller also counts its CleanupPolicies and
 *    ClusterCleanupPolicies, which Edict does not yet).
 * A policy or exception whose namespace the `kyverno-metrics` ConfigMap leaves out is not reported
 * (the legacy count, like Kyverno's, counts every one).
 */
import { Counter, Gauge } from 'prom-client';
import { MetricsConfiguration } from '@edict/controller-runtime';
import type { CelExceptionEntry, PolicyCache, PolicySnapshot } from '@edict/policy';
import type { AdmissionMetrics } from './admission-metrics';

export const POLICY_RULE_INFO = 'kyverno_policy_rule_info_total';
export const POLICY_CHANGES_TOTAL = 'kyverno_policy_changes_total';
export const POLICY_EXCEPTION_INFO = 'kyverno_policy_exception_info';
export const LEGACY_POLICIES_TOTAL = 'kyverno_legacy_policies_total';

/** The group of Kyverno's legacy policy kinds (Kyverno's label value). */
const LEGACY_GROUP = 'kyverno.io';

interface PolicyObject {
  readonly kind?: string;
  readonly metadata?: { readonly name?: string; readonly namespace?: string };
  readonly spec?: {
    readonly validationFailureAction?: string;
    readonly background?: boolean;
    readonly rules?: readonly Record<string, unknown>[];
  };
  readonly status?: { readonly ready?: boolean; readonly conditions?: readonly { type?: string; status?: string }[] };
}

/** What a policy's series are labelled with (Kyverno's GetPolicyInfos). */
interface PolicyInfo {
  readonly name: string;
  /** `-` for a ClusterPolicy. */
  readonly namespace: string;
  readonly type: 'cluster' | 'namespaced';
  readonly validationMode: 'enforce' | 'audit';
  readonly backgroundMode: 'true' | 'false';
}

function policyInfo(policy: PolicyObject, kind: string, name: string, namespace: string | undefined): PolicyInfo {
  return {
    name,
    namespace: kind === 'Policy' ? (namespace ?? '') : '-',
    type: kind === 'Policy' ? 'namespaced' : 'cluster',
    validationMode: policy.spec?.validationFailureAction?.toLowerCase() === 'enforce' ? 'enforce' : 'audit',
    backgroundMode: policy.spec?.background === false ? 'false' : 'true',
  };
}

/** Kyverno's ParseRuleType: the first of validate, mutate, generate, verifyImages the rule has. */
function ruleType(rule: Record<string, unknown>): string {
  const has = (field: string) => {
    const value = rule[field];
    if (value === undefined || value === null) return false;
    if (Array.isArray(value)) return value.length > 0;
    return typeof value !== 'object' || Object.keys(value).length > 0;
  };
  if (has('validate')) return 'validate';
  if (has('mutate')) return 'mutate';
  if (has('generate')) return 'generate';
  if (has('verifyImages')) return 'imageVerify';
  return '-';
}

function isReady(policy: PolicyObject): boolean {
  const condition = policy.status?.conditions?.find((entry) => entry.type === 'Ready');
  return condition ? condition.status === 'True' : policy.status?.ready === true;
}

/** Every stored policy of a snapshot, valid or not, by key: its info and its spec as text. */
function storedPolicies(snapshot: PolicySnapshot): Map<string, { info: PolicyInfo; spec: string }> {
  const stored = new Map<string, { info: PolicyInfo; spec: string }>();
  const add = (key: string, kind: string, name: string, namespace: string | undefined, source: unknown) => {
    const policy = (source ?? {}) as PolicyObject;
    stored.set(key, { info: policyInfo(policy, kind, name, namespace), spec: JSON.stringify(policy.spec ?? {}) });
  };
  for (const cached of snapshot.policies.values())
    add(cached.key, cached.kind, cached.name, cached.namespace, cached.source ?? cached.compiled.policy);
  for (const invalid of snapshot.invalid.values())
    add(invalid.key, invalid.kind, invalid.name, invalid.namespace, invalid.source);
  return stored;
}

export class PolicyMetrics {
  private known = new Map<string, { info: PolicyInfo; spec: string }>();
  private readonly changes: Counter<string>;
  private readonly off: () => void;

  constructor(
    private readonly cache: PolicyCache,
    metrics: AdmissionMetrics,
    private readonly configuration: MetricsConfiguration = MetricsConfiguration.DEFAULT,
    /** The stored CEL PolicyExceptions (the CEL policy cache's), none when not given. */
    private readonly celExceptions: () => readonly CelExceptionEntry[] = () => [],
  ) {
    this.changes = new Counter({
      name: POLICY_CHANGES_TOTAL,
      help: 'can be used to track all the changes associated with the Kyverno policies present on the cluster such as creation, updates and deletions',
      labelNames: [
        'policy_validation_mode',
        'policy_type',
        'policy_background_mode',
        'policy_namespace',
        'policy_name',
        'policy_change_type',
      ],
      registers: [metrics.registry],
    });
    const observe = (gauge: Gauge<string>) => this.observeRules(gauge);
    new Gauge({
      name: POLICY_RULE_INFO,
      help: "can be used to track the info of the rules or/and policies present in the cluster. 0 means the rule doesn't exist and has been deleted, 1 means the rule is currently existent in the cluster",
      labelNames: [
        'rule_name',
        'rule_type',
        'policy_namespace',
        'policy_name',
        'status_ready',
        'policy_validation_mode',
        'policy_type',
        'policy_background_mode',
      ],
      registers: [metrics.registry],
      collect() {
        observe(this);
      },
    });
    const observeExceptions = (gauge: Gauge<string>) => this.observeExceptions(gauge);
    new Gauge({
      name: POLICY_EXCEPTION_INFO,
      help: 'current PolicyException resources and their declared policy references; value is always 1',
      labelNames: ['exception_api_group', 'exception_namespace', 'exception_name', 'policy_kind', 'policy_name'],
      registers: [metrics.registry],
      collect() {
        observeExceptions(this);
      },
    });
    const observeLegacy = (gauge: Gauge<string>) => this.observeLegacy(gauge);
    new Gauge({
      name: LEGACY_POLICIES_TOTAL,
      help: 'can be used to track the number of legacy (non policies.kyverno.io) policy custom resources still present in the cluster, labeled by kind',
      labelNames: ['group', 'kind'],
      registers: [metrics.registry],
      collect() {
        observeLegacy(this);
      },
    });
    if (cache.hasSynced()) this.diff(cache.snapshot());
    this.off = cache.onChange((snapshot) => this.diff(snapshot));
  }

  stop(): void {
    this.off();
  }

  private diff(snapshot: PolicySnapshot): void {
    const now = storedPolicies(snapshot);
    for (const [key, entry] of now) {
      const before = this.known.get(key);
      if (!before) this.record(entry.info, 'created');
      else if (before.spec !== entry.spec) this.record(entry.info, 'updated');
    }
    for (const [key, entry] of this.known) if (!now.has(key)) this.record(entry.info, 'deleted');
    this.known = now;
  }

  private record(info: PolicyInfo, change: 'created' | 'updated' | 'deleted'): void {
    if (!this.configuration.checkNamespace(info.namespace)) return;
    this.changes.inc({
      policy_validation_mode: info.validationMode,
      policy_type: info.type,
      policy_background_mode: info.backgroundMode,
      policy_namespace: info.namespace,
      policy_name: info.name,
      policy_change_type: change,
    });
  }

  private observeRules(gauge: Gauge<string>): void {
    gauge.reset();
    for (const cached of this.cache.snapshot().policies.values()) {
      const source = (cached.source ?? cached.compiled.policy) as unknown as PolicyObject;
      const info = policyInfo(source, cached.kind, cached.name, cached.namespace);
      if (!this.configuration.checkNamespace(info.namespace)) continue;
      const ready = isReady(source) ? 'true' : 'false';
      // The rules with autogen's appended (Kyverno's autogen.ComputeRules).
      const rules = (cached.compiled.policy as unknown as PolicyObject).spec?.rules ?? [];
      for (const rule of rules)
        gauge.set(
          {
            rule_name: String(rule.name ?? ''),
            rule_type: ruleType(rule),
            policy_namespace: info.namespace,
            policy_name: info.name,
            status_ready: ready,
            policy_validation_mode: info.validationMode,
            policy_type: info.type,
            policy_background_mode: info.backgroundMode,
          },
          1,
        );
    }
  }

  private observeExceptions(gauge: Gauge<string>): void {
    gauge.reset();
    // Kyverno observes nothing from an informer not synced yet.
    if (!this.cache.hasSynced()) return;
    const observe = (group: string, namespace: string, name: string, refs: readonly [string, string][]) => {
      if (!this.configuration.checkNamespace(namespace)) return;
      const labels = { exception_api_group: group, exception_namespace: namespace, exception_name: name };
      if (refs.length === 0) gauge.set({ ...labels, policy_kind: '', policy_name: '' }, 1);
      for (const [kind, policy] of refs) gauge.set({ ...labels, policy_kind: kind, policy_name: policy }, 1);
    };
    for (const entry of this.cache.snapshot().allExceptions.values()) {
      const { metadata, spec } = entry.exception;
      const refs = (spec?.exceptions ?? []).map(({ policyName }): [string, string] => [
        String(policyName).includes('/') ? 'Policy' : 'ClusterPolicy',
        String(policyName),
      ]);
      observe(LEGACY_GROUP, metadata?.namespace ?? '', metadata?.name ?? '', refs);
    }
    for (const entry of this.celExceptions()) {
      const policyRefs = (entry.object as { spec?: { policyRefs?: { name?: string; kind?: string }[] } }).spec
        ?.policyRefs;
      const refs = (policyRefs ?? []).map(({ kind, name }): [string, string] => [
        String(kind ?? ''),
        String(name ?? ''),
      ]);
      observe('policies.kyverno.io', entry.object.metadata?.namespace ?? '', entry.object.metadata?.name ?? '', refs);
    }
  }

  private observeLegacy(gauge: Gauge<string>): void {
    gauge.reset();
    if (!this.cache.hasSynced()) return;
    const snapshot = this.cache.snapshot();
    const counts = new Map<string, number>([
      ['ClusterPolicy', 0],
      ['Policy', 0],
      ['PolicyException', snapshot.allExceptions.size],
    ]);
    for (const { kind } of [...snapshot.policies.values(), ...snapshot.invalid.values()])
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
    for (const [kind, count] of counts) gauge.set({ group: LEGACY_GROUP, kind }, count);
  }
}
