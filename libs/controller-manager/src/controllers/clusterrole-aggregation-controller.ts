/**
 * kube-controller-manager's ClusterRole aggregation controller: a ClusterRole with an
 * `aggregationRule` gets as its `rules` those of the other ClusterRoles its `clusterRoleSelectors`
 * pick (selector by selector, each selector's roles in name order, each rule once), kept up to date
 * as ClusterRoles come, change and go. Aggregated roles may themselves be picked, so chains settle
 * over several syncs, as in kube (its `admin` picks `edit`, which picks `view`).
 */
import { deepEqual, isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import { metadataOf, type ChangeEvent, type ClusterCache } from '@edict/apiserver';
import type { ControllerClient } from './controller-client';
import { labelsOf, selects } from './controller-refs';
import { keyOf, splitKey } from './queue-keys';
import { WorkQueue } from '@edict/work-queue';

export const CLUSTERROLES = 'rbac.authorization.k8s.io/clusterroles';

export class ClusterRoleAggregationController {
  readonly queue = new WorkQueue((key) => this.sync(key), 1);

  constructor(
    private readonly store: ClusterCache,
    private readonly client: ControllerClient,
  ) {}

  /** Any ClusterRole change may change what any aggregated role picks: all of them are queued. */
  observe(event: ChangeEvent): void {
    if (event.groupResource === CLUSTERROLES) this.resyncAll();
  }

  resyncAll(): void {
    for (const role of this.store.list(CLUSTERROLES)) {
      if (isObject(role.aggregationRule)) this.queue.add(keyOf(role));
    }
  }

  private async sync(key: string): Promise<void> {
    const [, name] = splitKey(key);
    const role = this.store.get(CLUSTERROLES, '', name);
    if (!role || !isObject(role.aggregationRule)) return;
    const selectors = arrayOf(role.aggregationRule.clusterRoleSelectors);
    const all = this.store.list(CLUSTERROLES).sort((a, b) => compare(nameOf(a), nameOf(b)));
    const rules: JsonValue[] = [];
    for (const selector of selectors) {
      for (const other of all) {
        if (nameOf(other) === name || !selects(selector, labelsOf(other))) continue;
        for (const rule of arrayOf(other.rules)) {
          if (!rules.some((kept) => deepEqual(kept, rule))) rules.push(rule);
        }
      }
    }
    if (deepEqual(arrayOf(role.rules), rules)) return;
    await this.client.update({ ...role, rules });
  }
}

function arrayOf(value: JsonValue | undefined): JsonValue[] {
  return Array.isArray(value) ? value : [];
}

function nameOf(object: JsonObject): string {
  return String(metadataOf(object).name);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
