/**
 * The webhook configurations Edict manages, side by side: as stored in the cluster (by the
 * managed-by label) and as the webhook controller would build them from the policies now, with
 * whether the cluster already covers what is wanted (the reconciler's own drift test). Read-only:
 * building the desired set writes nothing.
 */
import { Inject, Injectable } from '@nestjs/common';
import { KubeResources } from '@edict/kube';
import { LeaderService } from '@edict/leader';
import { PolicyCache } from '@edict/policy';
import {
  covers,
  WEBHOOK_OPTIONS,
  WebhookReconciler,
  type ResolvedWebhookOptions,
  type WebhookBuildResult,
  type WebhookConfiguration,
} from '@edict/webhook-config';
import type { WebhookConfigurationStateDto, WebhooksDto } from './webhooks.dto';
import { errorMessage } from '@edict/foundation';

const API_VERSION = 'admissionregistration.k8s.io/v1';
const KINDS = ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'] as const;

@Injectable()
export class WebhookStateService {
  constructor(
    private readonly reconciler: WebhookReconciler,
    private readonly cache: PolicyCache,
    private readonly resources: KubeResources,
    private readonly leader: LeaderService,
    @Inject(WEBHOOK_OPTIONS) private readonly options: ResolvedWebhookOptions,
  ) {}

  async state(): Promise<WebhooksDto> {
    const [stored, desired] = await Promise.all([this.stored(), this.desired()]);
    const wanted = 'built' in desired ? [...desired.built.validating, ...desired.built.mutating] : [];
    const names = new Map<string, { kind: string; name: string }>();
    for (const object of [...wanted, ...stored])
      names.set(`${object.kind}/${object.metadata.name}`, {
        kind: object.kind,
        name: object.metadata.name,
      });
    const configurations: WebhookConfigurationStateDto[] = [...names.values()]
      .sort((a, b) => `${a.kind}/${a.name}`.localeCompare(`${b.kind}/${b.name}`))
      .map(({ kind, name }) => {
        const inCluster = stored.find((c) => c.kind === kind && c.metadata.name === name);
        const target = wanted.find((c) => c.kind === kind && c.metadata.name === name);
        const inSync =
          !!inCluster &&
          !!target &&
          covers(target.webhooks, inCluster.webhooks ?? []) &&
          covers(target.metadata.labels, inCluster.metadata.labels);
        return {
          kind,
          name,
          inSync,
          ...(inCluster ? { inCluster: inCluster as unknown as Record<string, unknown> } : {}),
          ...(target ? { desired: target as unknown as Record<string, unknown> } : {}),
        };
      });
    const last = this.reconciler.lastResult();
    return {
      isLeader: this.leader.isLeader(),
      ...(last
        ? {
            lastReconcile: {
              at: last.at.toISOString(),
              ...(last.outcome ? { outcome: { ...last.outcome } } : {}),
              ...(last.error ? { error: last.error } : {}),
            },
          }
        : {}),
      desiredComplete: 'built' in desired ? desired.built.complete && this.cache.hasSynced() : false,
      unresolved: 'built' in desired ? [...desired.built.unresolved] : [],
      ...('error' in desired ? { desiredError: desired.error } : {}),
      configurations,
    };
  }

  /** The configurations carrying Edict's managed-by label. */
  private async stored(): Promise<WebhookConfiguration[]> {
    const { managedByLabel, managedBy } = this.options.names;
    const pages = await Promise.all(
      KINDS.map((kind) =>
        this.resources.list({ apiVersion: API_VERSION, kind }, { labelSelector: `${managedByLabel}=${managedBy}` }),
      ),
    );
    return pages.flatMap((page, i) =>
      page.items.map(
        (item) => ({ ...item, apiVersion: API_VERSION, kind: KINDS[i] }) as unknown as WebhookConfiguration,
      ),
    );
  }

  /** What the reconciler would publish now. */
  private async desired(): Promise<{ built: WebhookBuildResult } | { error: string }> {
    try {
      const built = await this.reconciler.desired();
      return built ? { built } : { error: 'no CA bundle yet' };
    } catch (error) {
      return { error: errorMessage(error) };
    }
  }
}
