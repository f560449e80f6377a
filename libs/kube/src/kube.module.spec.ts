import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Test } from '@nestjs/testing';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { InMemoryApiServer, kubeconfigFor } from '@edict/apiserver';
import { loadKubeConfig, type KubeConfigEnvironment } from './config/load-kube-config';
import { InformerFactory } from './informer/informer-factory';
import { KubeModule } from './kube.module';
import { KubeResources } from './http/kube-resources';
import { CORE_V1_API, KUBE_CONFIG } from './tokens';

describe('KubeModule', () => {
  const server = new InMemoryApiServer();
  let url: string;
  beforeAll(async () => ({ url } = await server.start({ host: '127.0.0.1', port: 0 })));
  afterAll(async () => server.stop());

  it('provides the config, typed APIs, resources and informers from a kubeconfig string', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [KubeModule.forRoot({ source: 'kubeconfig', kubeconfig: kubeconfigFor({ server: url }) })],
    }).compile();
    const config = moduleRef.get<KubeConfig>(KUBE_CONFIG);
    expect(config.getCurrentCluster()?.server).toBe(url);
    expect(moduleRef.get(KubeConfig)).toBe(config);
    const core = moduleRef.get<CoreV1Api>(CORE_V1_API);
    const namespaces = await core.listNamespace();
    expect(namespaces.items.map((n) => n.metadata?.name)).toContain('default');
    expect(
      await moduleRef.get(KubeResources).find({ apiVersion: 'v1', kind: 'Namespace', name: 'default' }),
    ).toBeDefined();

    const informer = moduleRef.get(InformerFactory).create({ apiVersion: 'v1', kind: 'Namespace' });
    informer.start();
    await informer.waitForSync(5_000);
    expect(informer.get('kube-system')).toMatchObject({ kind: 'Namespace' });
    await moduleRef.close(); // stops the informer
    await expect(informer.waitForSync()).resolves.toBeUndefined();
    expect(() => informer.start()).toThrow(/cannot start again/);
  });

  it('forRootAsync takes options from a factory', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        KubeModule.forRootAsync({
          useFactory: () => ({ source: 'kubeconfig', kubeconfig: kubeconfigFor({ server: url }) }),
        }),
      ],
    }).compile();
    expect(moduleRef.get<KubeConfig>(KUBE_CONFIG).getCurrentCluster()?.server).toBe(url);
    await moduleRef.close();
  });

  it('rejects bad options at registration, naming the field', () => {
    expect(() => KubeModule.forRoot({ source: 'cluster' as never })).toThrow(/Invalid KubeModule options: source:/);
    expect(() => KubeModule.forRoot({ kubeconfigPath: '' })).toThrow(/kubeconfigPath/);
    expect(() => KubeModule.forRoot({ bogus: 1 } as never)).toThrow(/bogus/);
  });
});

describe('loadKubeConfig', () => {
  const files = new Set<string>();
  const env = (vars: Record<string, string> = {}): KubeConfigEnvironment => ({
    env: vars,
    exists: (path) => files.has(path),
    home: '/home/u',
    cwd: '/repo',
  });
  const inline = kubeconfigFor({ server: 'http://127.0.0.1:1' });

  it('in-cluster: names what is missing', () => {
    expect(() => loadKubeConfig({ source: 'in-cluster' }, env())).toThrow(
      /KUBERNETES_SERVICE_HOST is not set, KUBERNETES_SERVICE_PORT is not set, no service account token at \/var\/run\/secrets\/kubernetes.io\/serviceaccount\/token/,
    );
  });

  it('in-cluster: uses the service account when present (auto prefers it)', () => {
    files.add('/sa/var/run/secrets/kubernetes.io/serviceaccount/token');
    const vars = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
    const config = loadKubeConfig({ source: 'auto', serviceAccountPathPrefix: '/sa' }, env(vars));
    expect(config.getCurrentCluster()?.server).toBe('https://10.0.0.1:443');
    // An explicit kubeconfig still wins under auto.
    expect(
      loadKubeConfig(
        { source: 'auto', kubeconfig: inline, serviceAccountPathPrefix: '/sa' },
        env(vars),
      ).getCurrentCluster()?.server,
    ).toBe('http://127.0.0.1:1');
    files.clear();
  });

  it('kubeconfig: explains when none is found, or when the file is missing', () => {
    expect(() => loadKubeConfig({ source: 'kubeconfig' }, env())).toThrow(/no kubeconfig found/);
    expect(() => loadKubeConfig({ source: 'auto' }, env())).toThrow(/no Kubernetes configuration found/);
    expect(() => loadKubeConfig({ source: 'kubeconfig', kubeconfigPath: 'x.yaml' }, env())).toThrow(
      'kubeconfig file not found: /repo/x.yaml',
    );
    expect(() => loadKubeConfig({ source: 'kubeconfig', kubeconfig: inline, context: 'nope' }, env())).toThrow(
      /no context "nope"/,
    );
  });
});
