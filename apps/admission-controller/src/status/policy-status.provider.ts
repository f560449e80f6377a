/**
 * The policy status writer of this controller: the policy cache's policies, the webhook
 * controller's publications, writes through `/status`, on the leader only.
 */
import type { FactoryProvider } from '@nestjs/common';
import { KubeResources } from '@edict/kube';
import { leaderGateOf, LeaderService } from '@edict/leader';
import { KubePolicyStatusStore, PolicyCache, PolicyStatusWriter } from '@edict/policy';
import { WebhookReconciler } from '@edict/webhooks';

export const policyStatusWriterProvider: FactoryProvider<PolicyStatusWriter> = {
  provide: PolicyStatusWriter,
  inject: [PolicyCache, WebhookReconciler, KubeResources, LeaderService],
  useFactory: (cache: PolicyCache, reconciler: WebhookReconciler, resources: KubeResources, leader: LeaderService) =>
    new PolicyStatusWriter({
      policies: cache,
      publications: reconciler,
      store: new KubePolicyStatusStore(resources),
      leader: leaderGateOf(leader),
    }),
};
