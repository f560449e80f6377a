import type { FactoryProvider } from '@nestjs/common';
import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { CertModuleConfig } from '@edict/cert';
import { KubeHttpClient, KubeResources } from '@edict/kube';
import { LeaderService } from '@edict/leader';
import { WebhookServerConfig } from '../config/webhook-server-config';
import { servingCertModule } from './serving-cert-module';

class SampleServerConfig extends WebhookServerConfig {
  override leaseName = 'edict-sample';
}

/** The CertModule configuration servingCertModule builds from `config`, as Nest would resolve it. */
async function certConfigOf(config: Parameters<typeof servingCertModule>[0]): Promise<CertModuleConfig> {
  const module = servingCertModule(config);
  const provider = (module.providers ?? []).find(
    (candidate): candidate is FactoryProvider =>
      typeof candidate === 'object' && 'useFactory' in candidate && (candidate.inject ?? []).includes(KubeResources),
  );
  const leader = { isLeader: () => true, onEvent: () => () => undefined } as unknown as LeaderService;
  const resources = new KubeResources(new KubeHttpClient(new KubeConfig()));
  return (await provider!.useFactory(resources, leader)) as CertModuleConfig;
}

describe('servingCertModule', () => {
  it("hands the certificate timing settings to the CertModule (the controller's tlsValidityMs as its leafValidityMs)", async () => {
    const config = Object.assign(new SampleServerConfig(), {
      caValidityMs: 90_000,
      tlsValidityMs: 36_000,
      renewBeforeMs: 18_000,
      caPropagationMs: 6_000,
      certCheckIntervalMs: 1_000,
    });
    expect(await certConfigOf(config)).toMatchObject({
      serviceName: 'edict-svc',
      namespace: 'edict',
      caValidityMs: 90_000,
      leafValidityMs: 36_000,
      renewBeforeMs: 18_000,
      caPropagationMs: 6_000,
    });
  });
});
