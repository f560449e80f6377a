/**
 * Every name Edict gives its own objects, derived from one setting: the install name. The scheme is
 * Kyverno's, with the install name where Kyverno writes `kyverno`, so `kyverno` yields exactly the
 * names of a Kyverno installation (runbooks and Kyverno's end-to-end suite keep working).
 *
 * The default install `edict` keeps two names it had before this scheme (see LEGACY_EDICT_NAMES).
 * Names Kyverno spells the same whatever its namespace (the TLS Secrets' `kyverno-tls-*` suffix,
 * event sources such as `kyverno-admission`, report labels) are not install names and stay fixed.
 */

export const DEFAULT_INSTALL_NAME = 'edict';
/** The install name that reproduces a Kyverno installation's names. */
export const KYVERNO_INSTALL_NAME = 'kyverno';
/** `<name>-svc` must still be a DNS label (63 characters). */
export const MAX_INSTALL_NAME_LENGTH = 59;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export interface LabelName {
  readonly key: string;
  readonly value: string;
}

export interface InstallNames {
  readonly installName: string;
  /** The namespace everything below lives in. */
  readonly namespace: string;
  /** The Kyverno-format ConfigMap the admission controller reads. */
  readonly configMap: string;
  /** The Service in front of the webhooks (its DNS names go into the serving certificate). */
  readonly service: string;
  /** The Service in front of the cleanup controller's webhook (its TLS Secrets are named after it). */
  readonly cleanupService: string;
  /** The admission controller's Deployment. */
  readonly admissionControllerDeployment: string;
  /** Leader election Leases, one per controller (the background, reports and cleanup ones for the controllers that follow). */
  readonly leases: {
    readonly admissionController: string;
    readonly backgroundController: string;
    readonly reportsController: string;
    readonly cleanupController: string;
  };
  /** The webhook configurations the admission controller (and the cleanup controller: `cleanupValidating`) publishes. */
  readonly webhookConfigurations: {
    readonly cleanupValidating: string;
    /** The cleanup controller's check of the `cleanup.kyverno.io/ttl` label (Kyverno's `/verifyttl`). */
    readonly ttlValidating: string;
    readonly resourceValidating: string;
    readonly resourceMutating: string;
    readonly policyValidating: string;
    readonly exceptionValidating: string;
    readonly globalContextValidating: string;
  };
  /** Webhook names inside them (the resource ones get `-fail` / `-ignore` appended). */
  readonly webhooks: {
    readonly validating: string;
    readonly mutating: string;
    readonly policyValidating: string;
    readonly exceptionValidating: string;
    readonly globalContextValidating: string;
  };
  /** Label on every webhook configuration Edict manages (and may delete). */
  readonly webhookManagedBy: LabelName;
  /** Annotation the webhook monitor stamps with the last admission request time. */
  readonly heartbeatAnnotation: string;
  /** The CA and serving-certificate Secrets. */
  readonly tlsSecrets: { readonly ca: string; readonly pair: string };
  /** Label on the TLS Secrets Edict manages (unlabelled ones are read, never rewritten). */
  readonly certManagedBy: LabelName;
}

/**
 * Names the default install had before the install name existed, kept so an upgrade does not
 * rename them. The Lease above all: a rolling upgrade that changed it would let an old and a new
 * replica each lead under its own Lease.
 */
const LEGACY_EDICT_NAMES = {
  admissionControllerLease: 'edict-admission-controller',
  exceptionValidatingWebhook: 'validate-policyexception.edict.svc',
} as const;

/** Why `name` cannot be an install name, or undefined when it can. */
export function installNameProblem(name: string): string | undefined {
  if (!DNS_LABEL.test(name))
    return `must be a DNS label (lower-case letters, digits and '-'), got ${JSON.stringify(name)}`;
  if (name.length > MAX_INSTALL_NAME_LENGTH)
    return `must be at most ${MAX_INSTALL_NAME_LENGTH} characters (so that "<name>-svc" is a DNS label), got ${name.length}`;
  return undefined;
}

/** The TLS Secret names Kyverno's certificate renewer uses for a Service (suffix fixed in every install). */
export function tlsSecretNames(service: string, namespace: string): { ca: string; pair: string } {
  const base = `${service}.${namespace}.svc`;
  return { ca: `${base}.kyverno-tls-ca`, pair: `${base}.kyverno-tls-pair` };
}

/** Every derived name for `installName`; throws on a name installNameProblem refuses. */
export function installNames(installName: string = DEFAULT_INSTALL_NAME): InstallNames {
  const problem = installNameProblem(installName);
  if (problem) throw new Error(`install name ${problem}`);
  const n = installName;
  const legacy = n === DEFAULT_INSTALL_NAME;
  const namespace = n;
  const service = `${n}-svc`;
  return {
    installName: n,
    namespace,
    configMap: n,
    service,
    cleanupService: `${n}-cleanup-controller`,
    admissionControllerDeployment: `${n}-admission-controller`,
    leases: {
      admissionController: legacy ? LEGACY_EDICT_NAMES.admissionControllerLease : n,
      backgroundController: `${n}-background-controller`,
      reportsController: `${n}-reports-controller`,
      cleanupController: `${n}-cleanup-controller`,
    },
    webhookConfigurations: {
      cleanupValidating: `${n}-cleanup-validating-webhook-cfg`,
      ttlValidating: `${n}-ttl-validating-webhook-cfg`,
      resourceValidating: `${n}-resource-validating-webhook-cfg`,
      resourceMutating: `${n}-resource-mutating-webhook-cfg`,
      policyValidating: `${n}-policy-validating-webhook-cfg`,
      exceptionValidating: `${n}-exception-validating-webhook-cfg`,
      globalContextValidating: `${n}-global-context-validating-webhook-cfg`,
    },
    webhooks: {
      validating: `validate.${n}.svc`,
      mutating: `mutate.${n}.svc`,
      policyValidating: `validate-policy.${n}.svc`,
      // Kyverno names its exception webhook after the Service's DNS name.
      exceptionValidating: legacy ? LEGACY_EDICT_NAMES.exceptionValidatingWebhook : `${service}.${namespace}.svc`,
      // Also a generic webhook controller's in Kyverno (new: no legacy name to keep).
      globalContextValidating: `${service}.${namespace}.svc`,
    },
    webhookManagedBy: { key: `webhook.${n}.io/managed-by`, value: n },
    heartbeatAnnotation: `${n}.io/last-request-time`,
    tlsSecrets: tlsSecretNames(service, namespace),
    certManagedBy: { key: `cert.${n}.io/managed-by`, value: n },
  };
}
