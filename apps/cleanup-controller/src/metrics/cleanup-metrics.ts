/**
 * Prometheus metrics with Kyverno's cleanup, deleting and TTL controller names: objects deleted and
 * deletions that failed, per policy (cleanup policies, DeletingPolicies) or per resource type
 * (TTL), and `kyverno_ttl_controller_info` (1 per resource type the TTL controller watches, read at
 * scrape as Kyverno's observable gauge); on a registry of its own so that several controllers in
 * one process do not collide.
 */
import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

const POLICY_LABELS = [
  'policy_type',
  'policy_namespace',
  'policy_name',
  'resource_kind',
  'resource_namespace',
] as const;
const DELETING_LABELS = [...POLICY_LABELS, 'deletion_propagation'] as const;
const TTL_TYPE_LABELS = ['resource_group', 'resource_version', 'resource_resource'] as const;
const TTL_LABELS = ['resource_namespace', ...TTL_TYPE_LABELS] as const;

export interface PolicyTarget {
  readonly policyKind: string;
  readonly policyNamespace?: string;
  readonly policyName: string;
  readonly kind: string;
  readonly namespace?: string;
}

/** A DeletingPolicy's target, with the policy's deletionPropagationPolicy when it sets one. */
export interface DeletingTarget extends PolicyTarget {
  readonly propagation?: string;
}

export interface TtlTarget {
  readonly namespace?: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

@Injectable()
export class CleanupMetrics {
  readonly registry = new Registry();
  private readonly cleanupDeleted = new Counter({
    name: 'kyverno_cleanup_controller_deletedobjects_total',
    help: 'Objects a cleanup policy deleted.',
    labelNames: POLICY_LABELS,
    registers: [this.registry],
  });
  private readonly cleanupErrors = new Counter({
    name: 'kyverno_cleanup_controller_errors_total',
    help: 'Objects a cleanup policy failed to delete (or to judge).',
    labelNames: POLICY_LABELS,
    registers: [this.registry],
  });
  private readonly deletingDeleted = new Counter({
    name: 'kyverno_deleting_controller_deletedobjects_total',
    help: 'Objects a DeletingPolicy deleted.',
    labelNames: DELETING_LABELS,
    registers: [this.registry],
  });
  private readonly deletingErrors = new Counter({
    name: 'kyverno_deleting_controller_errors_total',
    help: 'Objects a DeletingPolicy failed to delete (or to judge), and types it failed to list.',
    labelNames: DELETING_LABELS,
    registers: [this.registry],
  });
  private readonly runs = new Counter({
    name: 'edict_cleanup_policy_runs_total',
    help: 'Schedule slots a cleanup policy ran in (claimed by this replica).',
    labelNames: ['policy_type', 'policy_namespace', 'policy_name'],
    registers: [this.registry],
  });
  private readonly ttlDeleted = new Counter({
    name: 'kyverno_ttl_controller_deletedobjects_total',
    help: 'Objects deleted because their cleanup.kyverno.io/ttl was due.',
    labelNames: TTL_LABELS,
    registers: [this.registry],
  });
  private readonly ttlErrors = new Counter({
    name: 'kyverno_ttl_controller_errors_total',
    help: 'Objects whose cleanup.kyverno.io/ttl was due but whose deletion failed.',
    labelNames: TTL_LABELS,
    registers: [this.registry],
  });

  private ttlTypes: () => Iterable<Omit<TtlTarget, 'namespace'>> = () => [];

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    const types = () => this.ttlTypes();
    new Gauge({
      name: 'kyverno_ttl_controller_info',
      help: 'can be used to track individual resource controllers running for ttl based cleanup',
      labelNames: TTL_TYPE_LABELS,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const type of types())
          this.set({ resource_group: type.group, resource_version: type.version, resource_resource: type.resource }, 1);
      },
    });
  }

  /** The resource types the TTL controller watches, read at each scrape. */
  observeTtlTypes(types: () => Iterable<Omit<TtlTarget, 'namespace'>>): void {
    this.ttlTypes = types;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  ran(policyKind: string, policyName: string, policyNamespace = ''): void {
    this.runs.inc({ policy_type: policyKind, policy_namespace: policyNamespace, policy_name: policyName });
  }

  /** Slots run by this replica so far (specs: a slot runs once across replicas). */
  async runCount(): Promise<number> {
    return (await this.runs.get()).values.reduce((sum, value) => sum + value.value, 0);
  }

  cleanupOutcome(target: PolicyTarget, deleted: boolean): void {
    const labels = {
      policy_type: target.policyKind,
      policy_namespace: target.policyNamespace ?? '',
      policy_name: target.policyName,
      resource_kind: target.kind,
      resource_namespace: target.namespace ?? '',
    };
    (deleted ? this.cleanupDeleted : this.cleanupErrors).inc(labels);
  }

  deletingOutcome(target: DeletingTarget, deleted: boolean): void {
    const labels = {
      policy_type: target.policyKind,
      policy_namespace: target.policyNamespace ?? '',
      policy_name: target.policyName,
      resource_kind: target.kind,
      resource_namespace: target.namespace ?? '',
      deletion_propagation: target.propagation ?? '',
    };
    (deleted ? this.deletingDeleted : this.deletingErrors).inc(labels);
  }

  ttlOutcome(target: TtlTarget, deleted: boolean): void {
    const labels = {
      resource_namespace: target.namespace ?? '',
      resource_group: target.group,
      resource_version: target.version,
      resource_resource: target.resource,
    };
    (deleted ? this.ttlDeleted : this.ttlErrors).inc(labels);
  }
}
