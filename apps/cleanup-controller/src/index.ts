// The cleanup controller as a library, for what runs it in-process: the launcher (`npm start`)
// and the e2e suite. Its container entry point is main.ts.
export { startCleanupController } from './bootstrap';
export { CLEANUP_ENVIRONMENT, CLEANUP_KYVERNO_FLAGS, CleanupConfig, loadCleanupConfig } from './config/cleanup-config';
// One cleanup policy run over the cluster, for the tenant-isolation fuzzer (test/fuzz).
export { runCleanupPolicy } from './policies/cleanup-run';
export { kubeCleanupCluster } from './cluster/cleanup-cluster';
