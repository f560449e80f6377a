/**
 * What a controller serving admission webhooks (the admission controller, the cleanup controller)
 * configures besides the base: its Service and certificate, how the API server reaches it, and how
 * often the leader checks the certificate and the webhook configurations.
 */
import 'reflect-metadata';
import { Transform } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsIP, IsOptional, Matches, Max, Min, ValidateBy } from 'class-validator';
import { DEFAULT_CERT_TIMING, KEY_ALGORITHMS, type KeyAlgorithm } from '@edict/cert';
import { WEBHOOK_MONITOR_INTERVAL_MS } from '@edict/webhook-config';
import { certTimingProblemOf, type CertTimingField } from './cert-timing';
import { ControllerBaseConfig, DNS_LABEL, DNS_NAME } from './controller-config';

/** X.509 dates end in 9999; a century is far beyond any sensible lifetime. */
const MAX_VALIDITY_MS = 100 * 365 * 24 * 60 * 60 * 1000;

/** The checks of `field` against the other certificate timing settings (cert-timing.ts). */
function FitsCertTiming(field: CertTimingField): PropertyDecorator {
  return ValidateBy({
    name: 'certTiming',
    validator: {
      validate: (_value, args) => certTimingProblemOf(field, args?.object ?? {}) === undefined,
      defaultMessage: (args) => `${field} ${certTimingProblemOf(field, args?.object ?? {}) ?? ''}`,
    },
  });
}

const KYVERNO_KEY_ALGORITHMS: Readonly<Record<string, KeyAlgorithm>> = { RSA: 'RSA-2048', ECDSA: 'ECDSA-P256' };

export abstract class WebhookServerConfig extends ControllerBaseConfig {
  /** The Service in front of the webhook (its DNS names go into the serving certificate). */
  @Matches(DNS_LABEL, { message: 'serviceName must be a DNS label' })
  serviceName = 'edict-svc';

  /** How often the leader checks the certificates (renewal happens well before expiry). */
  @IsInt()
  @Min(100)
  certCheckIntervalMs = 60 * 60 * 1000;

  /** Validity of each CA the leader creates (Kyverno: one year). */
  @IsInt()
  @Min(1_000)
  @Max(MAX_VALIDITY_MS)
  caValidityMs: number = DEFAULT_CERT_TIMING.caValidityMs;

  /** Validity of each serving certificate (Kyverno: 150 days); never past its CA's expiry. */
  @IsInt()
  @Min(1_000)
  @Max(MAX_VALIDITY_MS)
  @FitsCertTiming('tlsValidityMs')
  tlsValidityMs: number = DEFAULT_CERT_TIMING.leafValidityMs;

  /**
   * Renew the serving certificate, and add a new CA, when less than this is left (Kyverno's
   * --renewBefore, 15 days).
   */
  @IsInt()
  @Min(1)
  @FitsCertTiming('renewBeforeMs')
  renewBeforeMs: number = DEFAULT_CERT_TIMING.renewBeforeMs;

  /**
   * How long a new CA sits in the bundle (the webhook configurations' caBundle) before a serving
   * certificate it signs replaces one still valid, so the API server trusts it first.
   */
  @IsInt()
  @Min(0)
  caPropagationMs: number = DEFAULT_CERT_TIMING.caPropagationMs;

  /** How long startup waits for a serving certificate (another replica may be issuing it). */
  @IsInt()
  @Min(100)
  tlsReadyTimeoutMs = 120_000;

  /**
   * Key algorithm of the CA and serving certificate. Kyverno's chart values (`tlsKeyAlgorithm`: RSA,
   * ECDSA, Ed25519) are accepted as they are, so a migrated install keeps its setting.
   */
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' ? (KYVERNO_KEY_ALGORITHMS[value] ?? value) : value,
  )
  @IsIn(KEY_ALGORITHMS, { message: `tlsKeyAlgorithm must be one of ${KEY_ALGORITHMS.join(', ')}, RSA or ECDSA` })
  tlsKeyAlgorithm: KeyAlgorithm = 'ECDSA-P256';

  /** Extra names and addresses for the serving certificate (local mode: localhost, 127.0.0.1). */
  @IsArray()
  @Matches(DNS_NAME, { each: true, message: 'extraDnsNames must hold DNS names' })
  extraDnsNames: string[] = [];

  /** Extra IP addresses for the serving certificate. */
  @IsArray()
  @IsIP(undefined, { each: true, message: 'ipAddresses must hold IP addresses' })
  ipAddresses: string[] = [];

  /**
   * Outside the cluster: the HTTPS base URL the API server calls the webhooks at (e.g.
   * `https://127.0.0.1:9443`); the configurations then carry this URL instead of the Service.
   */
  @IsOptional()
  @Matches(/^https:\/\/[^/\s]+(\/\S*)?$/, { message: 'webhookUrl must be an https:// URL' })
  webhookUrl?: string;

  /** The Service port the webhook configurations name (the Service forwards it to `port`). */
  @IsInt()
  @Min(1)
  @Max(65535)
  webhookServicePort = 443;

  /**
   * The controller's Deployment: when it is scaled to zero (or deleted), a replica shutting down
   * removes its webhook configurations. Unset: they are never removed automatically.
   */
  @IsOptional()
  @Matches(DNS_NAME, { message: 'deploymentName must be a DNS subdomain' })
  deploymentName?: string;

  /** How often the leader recreates missing webhook configurations (and stamps the heartbeat). */
  @IsInt()
  @Min(100)
  webhookMonitorIntervalMs = WEBHOOK_MONITOR_INTERVAL_MS;
}
