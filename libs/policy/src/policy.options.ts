/** The policy module's options, validated when the module is registered. */
import { validateOptions } from '@edict/config';
import { IsArray, IsBoolean, IsInt, IsOptional, IsString, Min } from 'class-validator';

export class PolicyModuleOptions {
  /**
   * Namespaces PolicyExceptions are taken from (Kyverno's `--exceptionNamespace`); `*` and `?`
   * wildcards allowed; `*` for every namespace. Absent or empty: none (exceptions off), as Kyverno
   * since 1.13. The controller may change them later (`PolicyCache.setExceptionNamespaces`).
   */
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  exceptionNamespaces?: string[];

  /** Extra cluster-scoped kinds (CRDs) for policy validation, on top of the built-in ones. */
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  clusterScopedKinds?: string[];

  /**
   * Kyverno's `--forceFailurePolicyIgnore`: every policy (classic and CEL) is served as
   * `failurePolicy: Ignore`, whatever it says (default false).
   */
  @IsOptional()
  @IsBoolean()
  forceFailurePolicyIgnore?: boolean;

  /** Full relist period of the informers (default 10 min; 0 turns it off). */
  @IsOptional()
  @IsInt()
  @Min(0)
  resyncIntervalMs?: number;

  /** Server-side watch length in seconds (default 300; tests use a few seconds). */
  @IsOptional()
  @IsInt()
  @Min(1)
  watchTimeoutSeconds?: number;

  /** First retry delay after a list or watch error (default 500 ms). */
  @IsOptional()
  @IsInt()
  @Min(1)
  retryInitialMs?: number;

  /** Longest retry delay after errors (default 30 s). */
  @IsOptional()
  @IsInt()
  @Min(1)
  retryMaxMs?: number;
}

export class PolicyOptionsError extends Error {
  override readonly name = 'PolicyOptionsError';
}

/** Builds and validates options; throws naming every bad field. */
export function validatePolicyOptions(input: Partial<PolicyModuleOptions> = {}): PolicyModuleOptions {
  const { options, problems } = validateOptions(PolicyModuleOptions, input);
  if (problems.length > 0) throw new PolicyOptionsError(`Invalid PolicyModule options: ${problems.join(', ')}`);
  return options;
}
