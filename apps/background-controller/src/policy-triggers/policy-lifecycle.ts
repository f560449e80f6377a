/**
 * What one change of a policy sets off, as Kyverno's policy controller (background controller)
 * does it; see rule-changes.ts for which rules each step takes:
 *  - deleted: the synchronized data rules' downstream objects are deleted (unless orphaned);
 *  - updated: the removed rules' downstream objects likewise; when no rule was removed, kept rules
 *    whose target changed let go of their old objects (Kyverno does one or the other); then as
 *    created;
 *  - created (and updated): synchronized data rules get an UpdateRequest per trigger of their
 *    downstream objects, so a changed rule reaches them; generateExisting and
 *    mutateExistingOnPolicyUpdate rules get one per existing resource they match.
 * Downstream objects are deleted here directly (Kyverno routes this through an UpdateRequest
 * flagged deleteDownstream; the outcome is the same and a missing object counts as done).
 * At most `maxRequests` UpdateRequests come from one change: a policy can select every object in
 * the cluster, and what is left over is reported rather than queued without bound.
 */
import {
  LABEL_TRIGGER_GROUP,
  LABEL_TRIGGER_KIND,
  LABEL_TRIGGER_NAMESPACE,
  LABEL_TRIGGER_UID,
  LABEL_TRIGGER_VERSION,
  type CompiledPolicy,
  type Rule,
} from '@edict/engine';
import type { KubeObject } from '@edict/foundation';
import type { CachedPolicy } from '@edict/policy';
import type { ObjectType } from './cluster-listing';
import { deleteDownstream, findDownstream, releaseDownstream } from './downstream';
import {
  createLifecycleRequest,
  narrowedPolicy,
  requestsForTrigger,
  type LifecycleRequestDeps,
} from './lifecycle-requests';
import type { PolicyChange } from './policy-changes';
import {
  cleanupTypes,
  dataTargets,
  generateExistingRules,
  mutateExistingOnUpdateRules,
  removedRules,
  retargetedRules,
  synchronizedDataRules,
} from './rule-changes';

export interface PolicyLifecycleDeps extends LifecycleRequestDeps {
  log(message: string): void;
  warn(message: string): void;
}

export interface PolicyLifecycleOptions {
  /** UpdateRequests one change may create. */
  readonly maxRequests: number;
}

/** Thrown to stop a pass whose leadership ended. */
class Stopped extends Error {}

export class PolicyLifecycle {
  constructor(
    private readonly deps: PolicyLifecycleDeps,
    private readonly options: PolicyLifecycleOptions,
  ) {}

  async handle(change: PolicyChange, signal?: AbortSignal): Promise<void> {
    try {
      if (change.type === 'deleted') {
        await this.cleanUp(change.previous, change.previous.compiled.generateRules);
        return;
      }
      if (change.type === 'updated') {
        const removed = removedRules(change.previous.compiled, change.policy.compiled);
        if (removed.length > 0) await this.cleanUp(change.previous, removed);
        else await this.release(change.previous, change.policy.compiled);
      }
      await new RequestPass(change.policy, this.deps, this.options.maxRequests, signal).run();
    } catch (error) {
      if (!(error instanceof Stopped)) throw error;
    }
  }

  private async cleanUp(policy: CachedPolicy, rules: readonly Rule[]): Promise<void> {
    for (const rule of rules) {
      const types = cleanupTypes(rule);
      if (types.length === 0) continue;
      const deleted = await deleteDownstream(
        this.deps.cluster,
        await findDownstream(this.deps.cluster, policy, rule.name, types),
      );
      if (deleted > 0) this.deps.log(`${describe(policy)}/${rule.name}: deleted ${deleted} downstream object(s)`);
    }
  }

  private async release(previous: CachedPolicy, current: CompiledPolicy): Promise<void> {
    for (const { rule, types } of retargetedRules(previous.compiled, current)) {
      await releaseDownstream(this.deps.cluster, await findDownstream(this.deps.cluster, previous, rule, types));
    }
  }
}

/** The UpdateRequests of one created or updated policy, within a budget. */
class RequestPass {
  private left: number;
  /** Objects listed this pass, by type and namespace, for finding triggers by uid. */
  private readonly listed = new Map<string, Map<string, KubeObject>>();
  private readonly deps: PolicyLifecycleDeps;

  constructor(
    private readonly policy: CachedPolicy,
    deps: PolicyLifecycleDeps,
    private readonly maxRequests: number,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.left = maxRequests;
    // Many triggers share a namespace: read its labels once a pass.
    const labels = new Map<string, Promise<Record<string, string> | undefined>>();
    const namespaceLabels = (namespace: string | undefined) => {
      if (!namespace) return deps.namespaceLabels(namespace);
      let read = labels.get(namespace);
      if (!read) labels.set(namespace, (read = deps.namespaceLabels(namespace)));
      return read;
    };
    this.deps = { ...deps, namespaceLabels };
  }

  async run(): Promise<void> {
    await this.refreshSynchronized();
    await this.runForExisting();
  }

  /** Each synchronized data rule again for the triggers of what it generated. */
  private async refreshSynchronized(): Promise<void> {
    for (const rule of synchronizedDataRules(this.policy.compiled)) {
      const narrowed = narrowedPolicy(this.policy.compiled, [rule]);
      const seen = new Set<string>();
      for (const downstream of await findDownstream(this.deps.cluster, this.policy, rule.name, dataTargets(rule))) {
        const labels = downstream.metadata?.labels ?? {};
        const uid = labels[LABEL_TRIGGER_UID];
        if (!uid || seen.has(uid)) continue;
        seen.add(uid);
        const trigger = await this.triggerOf(labels);
        if (trigger && !(await this.request(narrowed, trigger))) return;
      }
    }
  }

  /** generateExisting and mutateExistingOnPolicyUpdate rules for every resource they match now. */
  private async runForExisting(): Promise<void> {
    const compiled = this.policy.compiled;
    const rules = [...generateExistingRules(compiled), ...mutateExistingOnUpdateRules(compiled)];
    if (rules.length === 0) return;
    const narrowed = narrowedPolicy(compiled, rules);
    for (const type of await this.typesMatchedBy(rules)) {
      if (compiled.namespace && !type.namespaced) continue; // a Policy sees its own namespace only
      const request = { apiVersion: type.apiVersion, kind: type.kind, namespace: compiled.namespace };
      for await (const page of this.deps.cluster.list(request)) {
        for (const trigger of page) if (!(await this.request(narrowed, trigger))) return;
      }
    }
  }

  /** Creates the requests `policy` makes for `trigger`; false once the budget is spent. */
  private async request(policy: CompiledPolicy, trigger: KubeObject): Promise<boolean> {
    if (this.signal?.aborted) throw new Stopped();
    for (const spec of await requestsForTrigger(policy, trigger, this.deps)) {
      if (this.left <= 0) {
        this.deps.warn(
          `${describe(this.policy)}: more than ${this.maxRequests} UpdateRequests for one change of the policy; the rest are not created`,
        );
        return false;
      }
      if (await createLifecycleRequest(this.policy, spec, this.deps)) this.left--;
    }
    return true;
  }

  private async typesMatchedBy(rules: readonly Rule[]): Promise<ObjectType[]> {
    const selectors = new Set(rules.flatMap(matchedKinds));
    const types = new Map<string, ObjectType>();
    for (const selector of selectors) {
      for (const type of await this.deps.cluster.typesOf(selector)) types.set(`${type.apiVersion}/${type.kind}`, type);
    }
    return [...types.values()];
  }

  /** The trigger a downstream object's labels name (group, version, kind, namespace, uid), if it still exists. */
  private async triggerOf(labels: Record<string, string>): Promise<KubeObject | undefined> {
    const group = labels[LABEL_TRIGGER_GROUP] ?? '';
    const version = labels[LABEL_TRIGGER_VERSION] ?? '';
    const kind = labels[LABEL_TRIGGER_KIND] ?? '';
    if (!version || !kind) return undefined;
    const apiVersion = group ? `${group}/${version}` : version;
    const namespace = labels[LABEL_TRIGGER_NAMESPACE] || undefined;
    const key = `${apiVersion}/${kind}/${namespace ?? ''}`;
    let byUid = this.listed.get(key);
    if (!byUid) {
      byUid = new Map();
      for await (const page of this.deps.cluster.list({ apiVersion, kind, namespace })) {
        for (const object of page) if (object.metadata?.uid) byUid.set(object.metadata.uid, object);
      }
      this.listed.set(key, byUid);
    }
    return byUid.get(labels[LABEL_TRIGGER_UID] ?? '');
  }
}

function matchedKinds(rule: Rule): string[] {
  const { resources, any = [], all = [] } = rule.match;
  return [resources, ...any.map((filter) => filter.resources), ...all.map((filter) => filter.resources)].flatMap(
    (description) => description?.kinds ?? [],
  );
}

function describe(policy: CachedPolicy): string {
  return `${policy.kind} ${policy.key}`;
}
