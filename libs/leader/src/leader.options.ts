/**
 * LeaderModule options: a class validated with class-validator when the module is registered, so a
 * bad value fails startup with the field's name. The API client is not validated here: pass
 * libs/kube's KubeResources, a KubeConfig, or a ready LeaseLock.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeResources } from '@edict/kube/client';
import { plainToInstance } from 'class-transformer';
import {
  IsBoolean,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  Min,
  validateSync,
} from 'class-validator';
import { defaultIdentity } from './identity';
import { timingProblems } from './leader-elector';
import type { LeaseLock } from './lease-lock';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export class LeaderOptions {
  /** Name of the Lease (default `edict-leader`). */
  @IsString()
  @MaxLength(253)
  @Matches(DNS_SUBDOMAIN, { message: 'leaseName must be a DNS subdomain (lower case, digits, "-", ".")' })
  leaseName = 'edict-leader';

  /** Namespace of the Lease (default `POD_NAMESPACE`, else `default`). */
  @IsString()
  @MaxLength(63)
  @Matches(DNS_LABEL, { message: 'leaseNamespace must be a DNS label (lower case, digits, "-")' })
  leaseNamespace = process.env.POD_NAMESPACE?.trim() || 'default';

  /** This replica's holderIdentity (default `POD_NAME_POD_UID`, else `<hostname>_<random uuid>`). */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  identity?: string;

  /** How long a lease stays valid after its holder was last seen renewing it (whole seconds). */
  @IsInt()
  @Min(1000)
  leaseDurationMs = 15_000;

  /** How long the leader keeps leading without a successful renew. */
  @IsInt()
  @Min(1)
  renewDeadlineMs = 10_000;

  /** Interval between attempts (candidates add up to 1.2x jitter). */
  @IsInt()
  @Min(1)
  retryPeriodMs = 2_000;

  /** Release the lease on graceful shutdown (empty holder, 1 s duration) so another replica takes over at once. */
  @IsBoolean()
  releaseOnShutdown = true;

  /** Watch the lease so candidates try at once when it is released. */
  @IsBoolean()
  watchLease = true;

  /** Start contending on application bootstrap (else call `LeaderService.start()`). */
  @IsBoolean()
  autoStart = true;
}

/** What `forRoot` accepts: the options plus the way to reach the API server. */
export type LeaderModuleOptions = Partial<LeaderOptions> & {
  /** libs/kube's REST client for the lease calls and watch (the app's KubeResources). */
  readonly resources?: KubeResources;
  /** Builds a KubeResources of its own from it, when `resources` is not given. */
  readonly kubeConfig?: KubeConfig;
  /** A ready lock (tests, other lock kinds); takes precedence over both. */
  readonly lock?: LeaseLock;
};

export type ResolvedLeaderOptions = Readonly<Required<Omit<LeaderOptions, 'identity'>>> & {
  readonly identity: string;
  readonly resources?: KubeResources;
  readonly kubeConfig?: KubeConfig;
  readonly lock?: LeaseLock;
};

/** Validates and fills in defaults; throws an Error naming every bad field. */
export function resolveLeaderOptions(input: LeaderModuleOptions = {}): ResolvedLeaderOptions {
  const { resources, kubeConfig, lock, ...plain } = input;
  const options = plainToInstance(LeaderOptions, plain, { exposeDefaultValues: true });
  const problems = validateSync(options, {
    forbidUnknownValues: true,
    whitelist: true,
    forbidNonWhitelisted: true,
  }).flatMap((error) => Object.values(error.constraints ?? { [error.property]: `${error.property} is invalid` }));
  if (problems.length === 0) problems.push(...timingProblems(options));
  if (!lock && !resources && !kubeConfig) problems.push('one of resources, kubeConfig or lock is required');
  if (problems.length > 0) throw new Error(`LeaderModule options are invalid: ${problems.join('; ')}`);
  return {
    ...options,
    identity: options.identity ?? defaultIdentity(),
    resources,
    kubeConfig,
    lock,
  };
}
