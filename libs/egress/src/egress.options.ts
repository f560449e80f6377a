/** The egress guard's options, validated when a client is built. */
import { validateOptions } from '@edict/config';
import { IsArray, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { DEFAULT_BLOCKED_CIDRS, EgressConfigError } from './address-policy';

export const DEFAULT_EGRESS_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 2 * 1024 * 1024;

export class EgressOptions {
  /** CIDRs (or single addresses) never connected to; replaces DEFAULT_BLOCKED_CIDRS when given. */
  @IsOptional() @IsArray() @IsString({ each: true }) blockedCidrs?: string[];
  /** Default total time per call: connect, headers and body, redirects included (default 10 s). */
  @IsOptional() @IsInt() @Min(1) @Max(600_000) timeoutMs?: number;
  /** Default response body cap (default 2 MiB). */
  @IsOptional() @IsInt() @Min(1) maxResponseBytes?: number;
}

export interface ResolvedEgressOptions {
  readonly blockedCidrs: readonly string[];
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
}

/** Validates and fills in defaults; throws EgressConfigError naming every bad field. */
export function resolveEgressOptions(input: Partial<EgressOptions> = {}): ResolvedEgressOptions {
  const { options, problems } = validateOptions(EgressOptions, input);
  if (problems.length > 0) throw new EgressConfigError(`Invalid egress options: ${problems.join(', ')}`);
  return {
    blockedCidrs: options.blockedCidrs ?? DEFAULT_BLOCKED_CIDRS,
    timeoutMs: options.timeoutMs ?? DEFAULT_EGRESS_TIMEOUT_MS,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
  };
}
