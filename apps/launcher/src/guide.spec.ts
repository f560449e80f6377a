import { describe, expect, it } from 'vitest';
import { clusterGuide, localGuide } from './guide';

const facts = {
  apiUrl: 'https://127.0.0.1:6443',
  webhookPort: 9443,
  service: 'edict/edict-svc',
  backgroundPort: 40001,
  reportsPort: 40002,
  cleanupPort: 40003,
  cleanupService: 'edict/edict-cleanup-controller',
  kubeconfigPath: '/repo/.edict/kubeconfig',
  caPath: '/repo/.edict/ca.crt',
  swagger: true,
  policies: ['no-privileged-pods', 'require-team-label'],
  rejected: [],
};

describe('localGuide', () => {
  it('gives the export, a denied and an admitted Pod, and the Swagger URL', () => {
    const guide = localGuide(facts);
    expect(guide).toContain('  export KUBECONFIG=/repo/.edict/kubeconfig\n');
    expect(guide).toContain('  kubectl run web --image=nginx:1.27                    # denied by require-team-label\n');
    expect(guide).toContain('  kubectl run web --image=nginx:1.27 --labels=team=web  # admitted\n');
    expect(guide).toContain('Swagger UI: https://127.0.0.1:9443/docs (self-signed; CA in /repo/.edict/ca.crt)');
    expect(guide).toContain('  policies    no-privileged-pods, require-team-label\n');
  });

  it("gives every controller's port for health and metrics", () => {
    const guide = localGuide(facts);
    expect(guide).toContain('  webhooks    https://127.0.0.1:9443 (as Service edict/edict-svc)\n');
    expect(guide).toContain('  background  http://127.0.0.1:40001\n');
    expect(guide).toContain('  reports     http://127.0.0.1:40002\n');
    expect(guide).toContain('  cleanup     https://127.0.0.1:40003 (as Service edict/edict-cleanup-controller)\n');
    expect(guide).toContain(
      '  (each serves /healthz, /readyz and /metrics; the webhooks port is the admission controller)\n',
    );
  });

  it('lists refused examples, and promises no denial when require-team-label is missing', () => {
    const guide = localGuide({
      ...facts,
      policies: [],
      rejected: [{ source: 'examples/x/policy.yaml', message: 'denied: bad' }],
    });
    expect(guide).toContain('  rejected    examples/x/policy.yaml: denied: bad\n');
    expect(guide).toContain('  policies    none\n');
    expect(guide).not.toContain('kubectl run');
    expect(guide).toContain('kubectl apply -f <your policy.yaml>');
  });

  it('leaves Swagger out when the admin endpoints are off', () => {
    expect(localGuide({ ...facts, swagger: false })).not.toContain('Swagger');
  });
});

describe('clusterGuide', () => {
  const cluster = {
    cluster: 'kind-dev',
    server: 'https://10.0.0.1:6443',
    host: '0.0.0.0',
    webhookPort: 9443,
    namespace: 'edict',
    service: 'edict-svc',
    servicePort: 443,
  };

  it('says the Service must reach this process, and how to do without one', () => {
    const guide = clusterGuide(cluster);
    expect(guide).toContain("Edict's admission controller is running against https://10.0.0.1:6443 (kind-dev).");
    expect(guide).toContain('Service edict/edict-svc (port 443)');
    expect(guide).toContain('set EDICT_WEBHOOK_URL');
  });

  it('names the URL the configurations call when one is set', () => {
    const guide = clusterGuide({ ...cluster, webhookUrl: 'https://192.0.2.10:9443' });
    expect(guide).toContain('The webhook configurations call https://192.0.2.10:9443: the API server must reach it');
    expect(guide).not.toContain('Service edict/edict-svc');
  });
});
