/** The reports module's options, validated when the module is registered. */
import { validateOptions } from '@edict/config';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

export class ReportsModuleOptions {
  /** Reports waiting to be written; beyond this new ones are dropped and counted (default 1000). */
  @IsOptional() @IsInt() @Min(0) queueSize?: number;
  /**
   * How long a new report waits for others about the same resource to join it before it is queued
   * for writing (default 100 ms; 0: queued at once, still merged while it waits there).
   */
  @IsOptional() @IsInt() @Min(0) @Max(10_000) coalesceWindowMs?: number;
  /** Reports written at once (default 4). */
  @IsOptional() @IsInt() @Min(1) @Max(64) workers?: number;
  /** Kyverno's --maxAdmissionReports: no new report while more exist (default 10000). */
  @IsOptional() @IsInt() @Min(0) maxAdmissionReports?: number;
  /** Attempts per report write on transient errors (default 5). */
  @IsOptional() @IsInt() @Min(1) @Max(20) writeAttempts?: number;
  /** First retry delay, doubling up to retryMaxDelayMs (defaults 200 ms and 5 s). */
  @IsOptional() @IsInt() @Min(1) retryInitialDelayMs?: number;
  @IsOptional() @IsInt() @Min(1) retryMaxDelayMs?: number;
  /** Server-side watch length of the report counter's informers (default 300). */
  @IsOptional() @IsInt() @Min(1) watchTimeoutSeconds?: number;
}

export interface ResolvedReportsOptions {
  readonly queueSize: number;
  readonly coalesceWindowMs: number;
  readonly workers: number;
  readonly maxAdmissionReports: number;
  readonly writeAttempts: number;
  readonly retryInitialDelayMs: number;
  readonly retryMaxDelayMs: number;
  readonly watchTimeoutSeconds: number;
}

export class ReportsOptionsError extends Error {
  override readonly name = 'ReportsOptionsError';
}

/** Validates and fills in defaults; throws naming every bad field. */
export function resolveReportsOptions(input: Partial<ReportsModuleOptions> = {}): ResolvedReportsOptions {
  const { options, problems } = validateOptions(ReportsModuleOptions, input);
  if (problems.length > 0) throw new ReportsOptionsError(`Invalid ReportsModule options: ${problems.join(', ')}`);
  return {
    queueSize: options.queueSize ?? 1000,
    coalesceWindowMs: options.coalesceWindowMs ?? 100,
    workers: options.workers ?? 4,
    maxAdmissionReports: options.maxAdmissionReports ?? 10_000,
    writeAttempts: options.writeAttempts ?? 5,
    retryInitialDelayMs: options.retryInitialDelayMs ?? 200,
    retryMaxDelayMs: options.retryMaxDelayMs ?? 5_000,
    watchTimeoutSeconds: options.watchTimeoutSeconds ?? 300,
  };
}
