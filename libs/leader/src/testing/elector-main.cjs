// Test-only replica: one LeaderElector (the lib's own code) against an API server, as a process so
// tests can SIGKILL and SIGTERM it. Configured by environment; prints one JSON event per line:
//   {"event":"ready"|"started"|"stopped"|"leader"|"released"|"log", "identity", "at": epoch ms, ...}
// Run with: node -r <repo>/scripts/register-ts.cjs elector-main.cjs
const { KubeConfig } = require('@kubernetes/client-node');
const { KubeHttpClient, KubeResources } = require('@edict/kube/client');
const { KubeLeaseLock } = require('../kube-lease-lock.ts');
const { LeaderElector } = require('../leader-elector.ts');

const env = process.env;
const identity = env.ELECTOR_IDENTITY;
const emit = (event, extra = {}) =>
  process.stdout.write(`${JSON.stringify({ event, identity, at: Date.now(), ...extra })}\n`);

const kubeConfig = new KubeConfig();
kubeConfig.loadFromString(env.ELECTOR_KUBECONFIG);
const lock = new KubeLeaseLock({
  resources: new KubeResources(new KubeHttpClient(kubeConfig)),
  name: env.ELECTOR_LEASE_NAME ?? 'edict-leader',
  namespace: env.ELECTOR_LEASE_NAMESPACE ?? 'default',
  watch: env.ELECTOR_WATCH !== 'false',
  rewatchDelayMs: 200,
});
const elector = new LeaderElector({
  lock,
  identity,
  leaseDurationMs: Number(env.ELECTOR_LEASE_DURATION_MS ?? 3000),
  renewDeadlineMs: Number(env.ELECTOR_RENEW_DEADLINE_MS ?? 2000),
  retryPeriodMs: Number(env.ELECTOR_RETRY_PERIOD_MS ?? 250),
  log: (level, message) => {
    if (level !== 'debug') emit('log', { level, message });
  },
  callbacks: {
    onStartedLeading: () => emit('started'),
    onStoppedLeading: (reason) => emit('stopped', { reason }),
    onNewLeader: (leader) => emit('leader', { leader }),
  },
});

process.on('SIGTERM', async () => {
  await elector.stop({ release: true });
  emit('released');
  process.exit(0);
});
elector.start();
emit('ready');
