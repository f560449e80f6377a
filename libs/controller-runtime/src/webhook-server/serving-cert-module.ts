/**
 * The CA and serving certificate of a webhook server, in Secrets named after its Service, renewed
 * by its leader (CertModule); the Secrets carry the install's managed-by label.
 */
import type { DynamicModule } from '@nestjs/common';
import { CertModule } from '@edict/cert';
import { installNames } from '@edict/config';
import { KubeResources } from '@edict/kube';
import { leaderGateOf, LeaderService } from '@edict/leader';
import type { WebhookServerConfig } from '../config/webhook-server-config';

export function servingCertModule(config: WebhookServerConfig): DynamicModule {
  const { certManagedBy } = installNames(config.installName);
  return CertModule.forRootAsync({
    inject: [KubeResources, LeaderService],
    useFactory: (resources: KubeResources, leader: LeaderService) => ({
      resources,
      leaderGate: leaderGateOf(leader),
      serviceName: config.serviceName,
      namespace: config.namespace,
      keyAlgorithm: config.tlsKeyAlgorithm,
      extraDnsNames: config.extraDnsNames,
      ipAddresses: config.ipAddresses,
      managedByLabel: certManagedBy.key,
      managedBy: certManagedBy.value,
      caValidityMs: config.caValidityMs,
      leafValidityMs: config.tlsValidityMs,
      renewBeforeMs: config.renewBeforeMs,
      caPropagationMs: config.caPropagationMs,
    }),
  });
}
