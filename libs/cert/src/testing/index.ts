// Test helpers for @edict/cert.
export { MemorySecretStore } from './memory-secret-store';
export { ManualClock, TestLeaderGate } from './test-leader-gate';
export { startCertReplica, kubeConfigFromString, type CertReplica } from './cert-replica';
