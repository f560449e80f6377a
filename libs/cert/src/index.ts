// @edict/cert: a self-signed CA and serving certificate in Secrets, renewed by the leader, served live.
export { CertModule, type CertModuleConfig, type CertModuleAsyncConfig } from './cert.module';
export { CertLifecycle } from './cert-lifecycle';
export { CertModuleOptions, CertOptionsError, resolveCertOptions, type ResolvedCertOptions } from './cert.options';
export {
  CERT_CLOCK,
  CERT_KUBE_RESOURCES,
  CERT_LEADER_GATE,
  CERT_OPTIONS,
  CERT_SECRET_STORE,
  CERT_SECRET_WATCH,
  CA_ADDED_AT_ANNOTATION,
  DEFAULT_CERT_TIMING,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
} from './cert.constants';
export { SYSTEM_CLOCK, type CertClock } from './cert-clock';
export { KEY_ALGORITHMS, type KeyAlgorithm } from './crypto/key-algorithm';
export { defaultCaSecretName, defaultPairSecretName } from './secrets/secret-names';
export {
  SecretConflictError,
  type SecretStore,
  type SecretWatchSource,
  type SecretWrite,
  type StoredSecret,
} from './secrets/secret-store';
export { KubeSecretStore } from './secrets/kube-secret-store';
export { KubeSecretWatch } from './material/kube-secret-watch';
export {
  CertRenewer,
  CertRenewalError,
  type CaOutcome,
  type LeafOutcome,
  type ReconcileRequest,
  type ReconcileResult,
} from './renewal/cert-renewer';
export { TlsMaterial, type TlsSnapshot } from './material/tls-material';
export { createLiveHttpsServer, LiveSecureContext, type LiveTlsOptions } from './server/live-tls';
// Defined in @edict/config so that the embedded API server shares it.
export { SERVING_TLS_OPTIONS } from '@edict/config';
