/** The registry client's options, validated when it is built. */
import { validateOptions } from '@edict/config';
import { ArrayMaxSize, IsArray, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';

const MiB = 1024 * 1024;

export class RegistryOptions {
  /** Time per HTTP call to a registry or its token endpoint (default 10 s). */
  @IsOptional() @IsInt() @Min(1) @Max(120_000) timeoutMs?: number;
  /** Cap on a manifest or index (default 4 MiB, the size registries commonly accept). */
  @IsOptional() @IsInt() @Min(1024) @Max(64 * MiB) maxManifestBytes?: number;
  /** Cap on an image config blob (default 8 MiB). */
  @IsOptional() @IsInt() @Min(1024) @Max(64 * MiB) maxConfigBytes?: number;
  /** Default cap on a blob read for image verification (default 16 MiB): signatures, attestations. */
  @IsOptional() @IsInt() @Min(1024) @Max(1024 * MiB) maxBlobBytes?: number;
  /** Most referrers (signatures, attestations) listed for one image (default 1000). */
  @IsOptional() @IsInt() @Min(1) @Max(100_000) maxReferrers?: number;
  /**
   * Registries (`host[:port]`, as in image references) always reached as if the policy set
   * `allowInsecureRegistry`: plain HTTP when TLS fails, no certificate check. `*` for every registry
   * (Kyverno's --allowInsecureRegistry). Empty by default. The egress block list still applies.
   */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  @Matches(/^(\*|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})(?::\d{1,5})?|\[[0-9A-Fa-f:.]+\](?::\d{1,5})?)$/, {
    each: true,
    message: 'insecureRegistries entries must be host[:port] or *',
  })
  insecureRegistries?: string[];
  /** Resolved images kept (default 500; 0 turns the cache off). */
  @IsOptional() @IsInt() @Min(0) @Max(100_000) cacheEntries?: number;
  /** How long a resolved image is reused (default 5 minutes): tags move, so not for ever. */
  @IsOptional() @IsInt() @Min(0) @Max(24 * 3600 * 1000) cacheTtlMs?: number;
}

export interface ResolvedRegistryOptions {
  readonly timeoutMs: number;
  readonly maxManifestBytes: number;
  readonly maxConfigBytes: number;
  readonly maxBlobBytes: number;
  readonly maxReferrers: number;
  readonly insecureRegistries: readonly string[];
  readonly cacheEntries: number;
  readonly cacheTtlMs: number;
}

export class RegistryOptionsError extends Error {
  override readonly name = 'RegistryOptionsError';
}

/** Validates and fills in defaults; throws naming every bad field. */
export function resolveRegistryOptions(input: Partial<RegistryOptions> = {}): ResolvedRegistryOptions {
  const { options, problems } = validateOptions(RegistryOptions, input);
  if (problems.length > 0) throw new RegistryOptionsError(`Invalid registry options: ${problems.join(', ')}`);
  return {
    timeoutMs: options.timeoutMs ?? 10_000,
    maxManifestBytes: options.maxManifestBytes ?? 4 * MiB,
    maxConfigBytes: options.maxConfigBytes ?? 8 * MiB,
    maxBlobBytes: options.maxBlobBytes ?? 16 * MiB,
    maxReferrers: options.maxReferrers ?? 1000,
    insecureRegistries: (options.insecureRegistries ?? []).map((entry) => entry.toLowerCase()),
    cacheEntries: options.cacheEntries ?? 500,
    cacheTtlMs: options.cacheTtlMs ?? 5 * 60 * 1000,
  };
}
