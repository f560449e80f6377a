/** The webhook module's options, validated when the module is registered. */
import { validateOptions } from '@edict/config';
import { IsArray, IsBoolean, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { DEFAULT_WEBHOOK_NAMES, type WebhookNames } from './configurations/names';
import type { WebhookEndpoint } from './configurations/build-webhook-configurations';

const WEBHOOK_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?){2,}$/;
const WEBHOOK_NAME_MESSAGE = 'webhook names must be DNS names of three or more segments';
const QUALIFIED_NAME =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

export class WebhookModuleOptions {
  /** The admission controller's Service (Kyverno: `kyverno-svc`). */
  @IsOptional() @IsString() serviceName?: string;
  /** The namespace Edict runs in: the Service's, the Deployment's, and excluded by default. */
  @IsOptional() @IsString() namespace?: string;
  @IsOptional() @IsInt() @Min(1) @Max(65535) servicePort?: number;
  /** Local mode: the API server calls this HTTPS base URL instead of the Service. */
  @IsOptional()
  @IsString()
  @Matches(/^https:\/\/[^/\s]+(\/\S*)?$/, { message: 'url must be an https:// URL' })
  url?: string;
  /** Timeout of every webhook before policies raise it (Kyverno: 10 s). */
  @IsOptional() @IsInt() @Min(1) @Max(30) defaultTimeoutSeconds?: number;
  /** Namespaces the resource webhooks never see. Default: the own namespace and kube-system. */
  @IsOptional() @IsArray() @IsString({ each: true }) excludedNamespaces?: string[];
  /** The Deployment whose scale-down to zero removes the configurations (none: never automatic). */
  @IsOptional() @IsString() deploymentName?: string;
  /**
   * Quiet time after a policy or CA change before reconciling (default 100 ms): long enough to publish
   * a burst of policies (one `kubectl apply` of a folder) once, short enough that a policy is
   * enforced by the time the next command runs.
   */
  @IsOptional() @IsInt() @Min(0) debounceMs?: number;
  /** How long API discovery answers are reused (default 30 s). */
  @IsOptional() @IsInt() @Min(0) discoveryCacheMs?: number;
  @IsOptional() @IsBoolean() policyValidation?: boolean;
  @IsOptional() @IsBoolean() exceptionValidation?: boolean;
  @IsOptional() @IsBoolean() globalContextValidation?: boolean;
  @IsOptional() @IsString() resourceValidatingName?: string;
  @IsOptional() @IsString() resourceMutatingName?: string;
  @IsOptional() @IsString() policyValidatingName?: string;
  @IsOptional() @IsString() exceptionValidatingName?: string;
  @IsOptional() @IsString() globalContextValidatingName?: string;
  /** Webhook names inside the configurations (the API server wants three or more DNS segments). */
  @IsOptional() @Matches(WEBHOOK_NAME, { message: WEBHOOK_NAME_MESSAGE }) validatingWebhookName?: string;
  @IsOptional() @Matches(WEBHOOK_NAME, { message: WEBHOOK_NAME_MESSAGE }) mutatingWebhookName?: string;
  @IsOptional() @Matches(WEBHOOK_NAME, { message: WEBHOOK_NAME_MESSAGE }) policyValidatingWebhookName?: string;
  @IsOptional() @Matches(WEBHOOK_NAME, { message: WEBHOOK_NAME_MESSAGE }) exceptionValidatingWebhookName?: string;
  @IsOptional()
  @Matches(WEBHOOK_NAME, { message: WEBHOOK_NAME_MESSAGE })
  globalContextValidatingWebhookName?: string;
  /** Label key and value marking the configurations Edict manages (Kyverno: `webhook.kyverno.io/managed-by: kyverno`). */
  @IsOptional()
  @Matches(QUALIFIED_NAME, { message: 'managedByLabel must be a label key (`prefix/name`)' })
  managedByLabel?: string;
  @IsOptional() @Matches(LABEL_VALUE, { message: 'managedBy must be a label value' }) managedBy?: string;
  /** Annotation the monitor stamps with the time of its last successful pass. */
  @IsOptional()
  @Matches(QUALIFIED_NAME, { message: 'heartbeatAnnotation must be an annotation key (`prefix/name`)' })
  heartbeatAnnotation?: string;
}

export interface ResolvedWebhookOptions {
  readonly namespace: string;
  readonly endpoint: WebhookEndpoint;
  readonly defaultTimeoutSeconds: number;
  readonly excludedNamespaces: readonly string[];
  readonly deploymentName?: string;
  readonly debounceMs: number;
  readonly discoveryCacheMs: number;
  readonly policyValidation: boolean;
  readonly exceptionValidation: boolean;
  readonly globalContextValidation: boolean;
  readonly names: WebhookNames;
}

export class WebhookOptionsError extends Error {
  override readonly name = 'WebhookOptionsError';
}

/** Validates and fills in defaults; throws naming every bad field. */
export function resolveWebhookOptions(input: Partial<WebhookModuleOptions> = {}): ResolvedWebhookOptions {
  const { options, problems } = validateOptions(WebhookModuleOptions, input);
  if (problems.length > 0) throw new WebhookOptionsError(`Invalid WebhooksModule options: ${problems.join(', ')}`);
  const namespace = options.namespace ?? 'edict';
  return {
    namespace,
    endpoint: options.url
      ? { url: options.url }
      : { service: { name: options.serviceName ?? 'edict-svc', namespace, port: options.servicePort ?? 443 } },
    defaultTimeoutSeconds: options.defaultTimeoutSeconds ?? 10,
    excludedNamespaces: options.excludedNamespaces ?? [namespace, 'kube-system'],
    ...(options.deploymentName ? { deploymentName: options.deploymentName } : {}),
    debounceMs: options.debounceMs ?? 100,
    discoveryCacheMs: options.discoveryCacheMs ?? 30_000,
    policyValidation: options.policyValidation ?? true,
    exceptionValidation: options.exceptionValidation ?? true,
    globalContextValidation: options.globalContextValidation ?? true,
    names: {
      resourceValidating: options.resourceValidatingName ?? DEFAULT_WEBHOOK_NAMES.resourceValidating,
      resourceMutating: options.resourceMutatingName ?? DEFAULT_WEBHOOK_NAMES.resourceMutating,
      policyValidating: options.policyValidatingName ?? DEFAULT_WEBHOOK_NAMES.policyValidating,
      exceptionValidating: options.exceptionValidatingName ?? DEFAULT_WEBHOOK_NAMES.exceptionValidating,
      globalContextValidating: options.globalContextValidatingName ?? DEFAULT_WEBHOOK_NAMES.globalContextValidating,
      validatingWebhook: options.validatingWebhookName ?? DEFAULT_WEBHOOK_NAMES.validatingWebhook,
      mutatingWebhook: options.mutatingWebhookName ?? DEFAULT_WEBHOOK_NAMES.mutatingWebhook,
      policyValidatingWebhook: options.policyValidatingWebhookName ?? DEFAULT_WEBHOOK_NAMES.policyValidatingWebhook,
      exceptionValidatingWebhook:
        options.exceptionValidatingWebhookName ?? DEFAULT_WEBHOOK_NAMES.exceptionValidatingWebhook,
      globalContextValidatingWebhook:
        options.globalContextValidatingWebhookName ?? DEFAULT_WEBHOOK_NAMES.globalContextValidatingWebhook,
      managedByLabel: options.managedByLabel ?? DEFAULT_WEBHOOK_NAMES.managedByLabel,
      managedBy: options.managedBy ?? DEFAULT_WEBHOOK_NAMES.managedBy,
      heartbeatAnnotation: options.heartbeatAnnotation ?? DEFAULT_WEBHOOK_NAMES.heartbeatAnnotation,
    },
  };
}
