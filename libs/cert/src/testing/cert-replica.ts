/** A CertModule "replica" against a kubeconfig, as integration specs and app tests start them. */
import { KubeConfig } from '@kubernetes/client-node';
import { Test, type TestingModule } from '@nestjs/testing';
import { CertModule, type CertModuleConfig } from '../cert.module';
import type { LeaderGate } from '@edict/leader';
import { TlsMaterial } from '../material/tls-material';
import { CertRenewer } from '../renewal/cert-renewer';

export interface CertReplica {
  readonly moduleRef: TestingModule;
  readonly renewer: CertRenewer;
  readonly material: TlsMaterial;
  close(): Promise<void>;
}

export function kubeConfigFromString(text: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromString(text);
  return config;
}

export async function startCertReplica(
  kubeconfig: string,
  leaderGate: LeaderGate,
  options: Omit<CertModuleConfig, 'leaderGate' | 'kubeConfig'>,
): Promise<CertReplica> {
  const moduleRef = await Test.createTestingModule({
    imports: [CertModule.forRoot({ ...options, leaderGate, kubeConfig: kubeConfigFromString(kubeconfig) })],
  }).compile();
  await moduleRef.init();
  return {
    moduleRef,
    renewer: moduleRef.get(CertRenewer),
    material: moduleRef.get(TlsMaterial),
    close: () => moduleRef.close(),
  };
}
