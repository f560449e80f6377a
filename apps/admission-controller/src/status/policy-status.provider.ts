/**
 * The policy status writer of this controller: the policy cache's policies, the webhook
 * controller's publications, writes through `/status`, on the leader only; its PolicyError events
 * (a policy turned invalid) go out through the admission controller's event recorder.
 */
import type { FactoryProvider } from '@nestjs/common';
import { KubeAccessReviewer } from '@edict/context';
import { KubeResources } from '@edict/kube';
import { leaderGateOf, LeaderService } from '@edict/leader';
import {
  AccessReviewReportingPermissions,
  CelPolicyCache,
  CelPolicyStatusWriter,
  KubeCelPolicyStatusStore,
  KubePolicyStatusStore,
  PolicyCache,
  PolicyStatusWriter,
} from '@edict/policy';
import { WebhookReconciler } from '@edict/webhook-config';
import { AfterAdmissionService } from '../after-admission/after-admission.service';
import type { ControllerConfig } from '../config/controller-config';
import { CONTROLLER_CONFIG } from '../config/tokens';

export const policyStatusWriterProvider: FactoryProvider<PolicyStatusWriter> = {
  provide: PolicyStatusWriter,
  inject: [PolicyCache, WebhookReconciler, KubeResources, LeaderService, AfterAdmissionService],
  useFactory: (
    cache: PolicyCache,
    reconciler: WebhookReconciler,
    resources: KubeResources,
    leader: LeaderService,
    after: AfterAdmissionService,
  ) =>
    new PolicyStatusWriter({
      policies: cache,
      publications: reconciler,
      store: new KubePolicyStatusStore(resources),
      leader: leaderGateOf(leader),
      events: after.events,
    }),
};

/**
 * The status of ValidatingPolicies (Kyverno's conditionStatus and autogen), leader only, through
 * `/status`; RBACPermissionsGranted asks whether the reports controller (reportsUsername) may read
 * what each policy matches.
 */
export const celPolicyStatusWriterProvider: FactoryProvider<CelPolicyStatusWriter> = {
  provide: CelPolicyStatusWriter,
  inject: [CONTROLLER_CONFIG, CelPolicyCache, WebhookReconciler, KubeResources, LeaderService, KubeAccessReviewer],
  useFactory: (
    config: ControllerConfig,
    cache: CelPolicyCache,
    reconciler: WebhookReconciler,
    resources: KubeResources,
    leader: LeaderService,
    reviewer: KubeAccessReviewer,
  ) =>
    new CelPolicyStatusWriter({
      policies: cache,
      publications: reconciler,
      store: new KubeCelPolicyStatusStore(resources),
      leader: leaderGateOf(leader),
      ...(config.reportsUsername
        ? { permissions: new AccessReviewReportingPermissions(reviewer, config.reportsUsername) }
        : {}),
    }),
};
