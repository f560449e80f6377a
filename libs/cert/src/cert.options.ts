/**
 * CertModule's options: a class validated with class-validator when the module is registered, so a
 * bad value fails at startup with the field named. Durations are milliseconds.
 */
import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsIP,
  IsOptional,
  IsString,
  Matches,
  Min,
  validateSync,
  type ValidationError,
} from 'class-validator';
import { DEFAULT_CERT_TIMING, MANAGED_BY_LABEL, MANAGED_BY_VALUE } from './cert.constants';
import { KEY_ALGORITHMS, type KeyAlgorithm } from './crypto/key-algorithm';
import { defaultCaSecretName, defaultPairSecretName } from './secrets/secret-names';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_NAME = /^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

export class CertModuleOptions {
  /** The Service in front of the TLS server (its DNS names go into the certificate). */
  @IsString()
  @Matches(DNS_LABEL, { message: 'serviceName must be a DNS label (lowercase letters, digits, -)' })
  serviceName!: string;

  /** Namespace of the Service and of the two Secrets. */
  @IsString()
  @Matches(DNS_LABEL, { message: 'namespace must be a DNS label (lowercase letters, digits, -)' })
  namespace!: string;

  @IsOptional()
  @IsIn(KEY_ALGORITHMS, { message: `keyAlgorithm must be one of ${KEY_ALGORITHMS.join(', ')}` })
  keyAlgorithm?: KeyAlgorithm;

  /** Cluster DNS suffix for `<svc>.<ns>.svc.<clusterDomain>`. */
  @IsOptional()
  @Matches(DNS_NAME, { message: 'clusterDomain must be a DNS name' })
  clusterDomain?: string;

  /** More DNS names for the serving certificate (e.g. `localhost` in local mode). */
  @IsOptional()
  @IsArray()
  @Matches(DNS_NAME, { each: true, message: 'extraDnsNames must hold DNS names' })
  extraDnsNames?: string[];

  /** IP addresses for the serving certificate (e.g. `127.0.0.1` in local mode). */
  @IsOptional()
  @IsArray()
  @IsIP(undefined, { each: true, message: 'ipAddresses must hold IP addresses' })
  ipAddresses?: string[];

  @IsOptional()
  @Matches(DNS_NAME, { message: 'caSecretName must be a DNS subdomain' })
  caSecretName?: string;

  @IsOptional()
  @Matches(DNS_NAME, { message: 'pairSecretName must be a DNS subdomain' })
  pairSecretName?: string;

  /** Label key marking the Secrets this module owns (default `cert.edict.io/managed-by`). */
  @IsOptional()
  @Matches(LABEL_KEY, { message: 'managedByLabel must be a label key (`prefix/name`)' })
  managedByLabel?: string;

  /** That label's value (default `edict`). */
  @IsOptional()
  @Matches(DNS_LABEL, { message: 'managedBy must be a DNS label' })
  managedBy?: string;

  @IsOptional()
  @IsInt()
  @Min(1000)
  caValidityMs?: number;

  @IsOptional()
  @IsInt()
  @Min(1000)
  leafValidityMs?: number;

  /** Renew the serving certificate when less than this is left. */
  @IsOptional()
  @IsInt()
  @Min(0)
  renewBeforeMs?: number;

  /** Add a new CA when the newest one has less than this left (default: renewBeforeMs). */
  @IsOptional()
  @IsInt()
  @Min(0)
  caRenewBeforeMs?: number;

  /**
   * How long a new CA sits in the bundle before a serving certificate it signs replaces a still
   * valid one, so every client has the new bundle before the new leaf is served.
   */
  @IsOptional()
  @IsInt()
  @Min(0)
  caPropagationMs?: number;

  /** notBefore is backdated by this much to tolerate clock skew between nodes. */
  @IsOptional()
  @IsInt()
  @Min(0)
  clockSkewMs?: number;

  /** Watch the Secrets (needs a KubeConfig) and react to changes; otherwise refresh() only. */
  @IsOptional()
  @IsBoolean()
  watch?: boolean;

  /** Backoff before restarting a failed Secret watch (doubles up to 30 s). */
  @IsOptional()
  @IsInt()
  @Min(1)
  watchRetryMs?: number;

  /** Reconcile once on application bootstrap (when leading). */
  @IsOptional()
  @IsBoolean()
  reconcileOnStart?: boolean;
}

/** Options with every default filled in. */
export interface ResolvedCertOptions {
  readonly serviceName: string;
  readonly namespace: string;
  readonly keyAlgorithm: KeyAlgorithm;
  readonly clusterDomain: string;
  readonly commonName: string;
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
  readonly caSecretName: string;
  readonly pairSecretName: string;
  /** The label on the Secrets this module owns. */
  readonly managedBy: { readonly key: string; readonly value: string };
  readonly caValidityMs: number;
  readonly leafValidityMs: number;
  readonly renewBeforeMs: number;
  readonly caRenewBeforeMs: number;
  readonly caPropagationMs: number;
  readonly clockSkewMs: number;
  readonly watch: boolean;
  readonly watchRetryMs: number;
  readonly reconcileOnStart: boolean;
}

export class CertOptionsError extends Error {
  override readonly name = 'CertOptionsError';
}

function describe(errors: ValidationError[], prefix = ''): string[] {
  return errors.flatMap((error) => [
    ...Object.values(error.constraints ?? {}).map((text) => `${prefix}${error.property}: ${text}`),
    ...describe(error.children ?? [], `${prefix}${error.property}.`),
  ]);
}

/** Validates raw options and fills defaults; throws CertOptionsError naming every bad field. */
export function resolveCertOptions(raw: Partial<CertModuleOptions>): ResolvedCertOptions {
  const options = plainToInstance(CertModuleOptions, raw);
  const problems = describe(validateSync(options, { forbidUnknownValues: false }));
  const renewBeforeMs = options.renewBeforeMs ?? DEFAULT_CERT_TIMING.renewBeforeMs;
  const caValidityMs = options.caValidityMs ?? DEFAULT_CERT_TIMING.caValidityMs;
  const leafValidityMs = options.leafValidityMs ?? DEFAULT_CERT_TIMING.leafValidityMs;
  const caRenewBeforeMs = options.caRenewBeforeMs ?? renewBeforeMs;
  if (problems.length === 0) {
    if (renewBeforeMs >= leafValidityMs) problems.push('renewBeforeMs: must be less than leafValidityMs');
    if (caRenewBeforeMs >= caValidityMs) problems.push('caRenewBeforeMs: must be less than caValidityMs');
  }
  if (problems.length > 0) throw new CertOptionsError(`invalid CertModule options: ${problems.join('; ')}`);

  const { serviceName, namespace } = options;
  const clusterDomain = options.clusterDomain ?? 'cluster.local';
  const commonName = `${serviceName}.${namespace}.svc`;
  const dnsNames = unique([
    serviceName,
    `${serviceName}.${namespace}`,
    commonName,
    `${commonName}.${clusterDomain}`,
    ...(options.extraDnsNames ?? []),
  ]);
  return {
    serviceName,
    namespace,
    keyAlgorithm: options.keyAlgorithm ?? 'ECDSA-P256',
    clusterDomain,
    commonName,
    dnsNames,
    ipAddresses: unique(options.ipAddresses ?? []),
    caSecretName: options.caSecretName ?? defaultCaSecretName(serviceName, namespace),
    pairSecretName: options.pairSecretName ?? defaultPairSecretName(serviceName, namespace),
    managedBy: { key: options.managedByLabel ?? MANAGED_BY_LABEL, value: options.managedBy ?? MANAGED_BY_VALUE },
    caValidityMs,
    leafValidityMs,
    renewBeforeMs,
    caRenewBeforeMs,
    caPropagationMs: options.caPropagationMs ?? DEFAULT_CERT_TIMING.caPropagationMs,
    clockSkewMs: options.clockSkewMs ?? 60 * 60 * 1000,
    watch: options.watch ?? true,
    watchRetryMs: options.watchRetryMs ?? 1000,
    reconcileOnStart: options.reconcileOnStart ?? true,
  };
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
