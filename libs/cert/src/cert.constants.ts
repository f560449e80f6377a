/** Injection tokens and the names CertModule writes into the cluster. */
export const CERT_OPTIONS = Symbol('CERT_OPTIONS');
/** libs/kube's KubeResources used for the two Secrets and their watch (null with a SecretStore given). */
export const CERT_KUBE_RESOURCES = Symbol('CERT_KUBE_RESOURCES');
/** The "may I write" gate (a LeaderGate). */
export const CERT_LEADER_GATE = Symbol('CERT_LEADER_GATE');
/** The clock the renewer decides with (a CertClock). */
export const CERT_CLOCK = Symbol('CERT_CLOCK');
/** The Secret storage the renewer and the reader use (a SecretStore). */
export const CERT_SECRET_STORE = Symbol('CERT_SECRET_STORE');
/** The Secret watch (a SecretWatchSource); absent without a KubeConfig. */
export const CERT_SECRET_WATCH = Symbol('CERT_SECRET_WATCH');

/** Default label on the Secrets this module owns (option managedByLabel / managedBy); unlabelled Secrets are read but never rewritten. */
export const MANAGED_BY_LABEL = 'cert.edict.io/managed-by';
export const MANAGED_BY_VALUE = 'edict';
/** When the newest CA entered the bundle; a leaf it signs waits `caPropagationMs` after this. */
export const CA_ADDED_AT_ANNOTATION = 'cert.edict.io/ca-added-at';

export const TLS_SECRET_TYPE = 'kubernetes.io/tls';
export const TLS_CERT_KEY = 'tls.crt';
export const TLS_PRIVATE_KEY_KEY = 'tls.key';

export const DAY_MS = 24 * 60 * 60 * 1000;

/** The lifetimes and margins used when none is configured (Kyverno's CA and serving certificate validity and renewBefore). */
export const DEFAULT_CERT_TIMING = {
  caValidityMs: 365 * DAY_MS,
  leafValidityMs: 150 * DAY_MS,
  renewBeforeMs: 15 * DAY_MS,
  caPropagationMs: 5 * 60 * 1000,
} as const;
