import { Logger, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { describe, expect, it } from 'vitest';
import { CERT_OPTIONS } from './cert.constants';
import { CertModule } from './cert.module';
import type { ResolvedCertOptions } from './cert.options';
import { TlsMaterial } from './material/tls-material';
import { CertRenewer } from './renewal/cert-renewer';
import { MemorySecretStore, TestLeaderGate } from './testing';

Logger.overrideLogger(false);

const GATE = Symbol('GATE');
@Module({ providers: [{ provide: GATE, useValue: new TestLeaderGate(true) }], exports: [GATE] })
class LeaderStubModule {}

describe('CertModule.forRootAsync', () => {
  it('takes the gate from another module, reconciles on bootstrap and exports the services', async () => {
    const store = new MemorySecretStore();
    const moduleRef = await Test.createTestingModule({
      imports: [
        CertModule.forRootAsync({
          imports: [LeaderStubModule],
          inject: [GATE],
          useFactory: (gate: TestLeaderGate) => ({
            serviceName: 'edict',
            namespace: 'edict',
            keyAlgorithm: 'Ed25519' as const,
            leaderGate: gate,
            secretStore: store,
          }),
        }),
      ],
    }).compile();
    await moduleRef.init();
    expect(moduleRef.get<ResolvedCertOptions>(CERT_OPTIONS).keyAlgorithm).toBe('Ed25519');
    expect(store.writes).toEqual(['edict.edict.svc.kyverno-tls-ca@1', 'edict.edict.svc.kyverno-tls-pair@2']);
    expect(moduleRef.get(TlsMaterial).current()).toBeDefined();
    expect(await moduleRef.get(CertRenewer).reconcile()).toMatchObject({ ca: 'unchanged', leaf: 'unchanged' });
    await moduleRef.close();
  });

  it('fails at startup when the factory gives bad options', async () => {
    const moduleRef = Test.createTestingModule({
      imports: [
        CertModule.forRootAsync({
          useFactory: () => ({
            serviceName: 'edict',
            namespace: 'edict',
            renewBeforeMs: -1,
            leaderGate: new TestLeaderGate(),
            secretStore: new MemorySecretStore(),
          }),
        }),
      ],
    }).compile();
    await expect(moduleRef).rejects.toThrow('renewBeforeMs: renewBeforeMs must not be less than 0');
  });
});
