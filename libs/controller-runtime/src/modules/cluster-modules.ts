/** Cluster access, leader election and the policy cache, composed the same way in every controller from its config. */
import type { DynamicModule } from '@nestjs/common';
import { KubeModule, KubeResources } from '@edict/kube';
import { LeaderModule } from '@edict/leader';
import { PolicyModule } from '@edict/policy';
import type { ControllerBaseConfig } from '../config/controller-config';

export function clusterModules(config: ControllerBaseConfig): DynamicModule[] {
  return [
    KubeModule.forRoot({
      source: config.kubeSource,
      ...(config.kubeconfig ? { kubeconfig: config.kubeconfig } : {}),
      ...(config.kubeconfigPath ? { kubeconfigPath: config.kubeconfigPath } : {}),
    }),
    LeaderModule.forRootAsync({
      inject: [KubeResources],
      useFactory: (resources: KubeResources) => ({
        resources,
        leaseName: config.leaseName,
        leaseNamespace: config.namespace,
        leaseDurationMs: config.leaseDurationMs,
        renewDeadlineMs: config.renewDeadlineMs,
        retryPeriodMs: config.retryPeriodMs,
        ...(config.leaseIdentity ? { identity: config.leaseIdentity } : {}),
      }),
    }),
  ];
}

/** The policy cache, with the controller's exception namespaces and watch length. */
export function policyModule(config: ControllerBaseConfig): DynamicModule {
  return PolicyModule.forRoot({
    ...(config.exceptionNamespaces.length > 0 ? { exceptionNamespaces: config.exceptionNamespaces } : {}),
    watchTimeoutSeconds: config.watchTimeoutSeconds,
    ...(config.forceFailurePolicyIgnore ? { forceFailurePolicyIgnore: true } : {}),
  });
}
