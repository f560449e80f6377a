/**
 * Runs one fuzz property with fast-check: a fixed seed, a watchdog per case (a case that does not
 * settle in time fails, so a hang becomes a counterexample) and the prototype pollution check after
 * every case. Returns the counts and, on failure, fast-check's report with the shrunk counterexample.
 */
import fc from 'fast-check';
import { assertNoPrototypePollution } from './pollution';
import type { FuzzProperty, Outcome } from './properties';

export interface RunOptions {
  seed: number;
  numRuns: number;
  /** A case still running after this fails as a hang. */
  caseTimeoutMs?: number;
  /** Stops starting cases after this long (fast-check's interruptAfterTimeLimit); the runs done count. */
  timeLimitMs?: number;
}

export interface PropertyReport {
  name: string;
  seed: number;
  /** Cases run before the end or the first failure (shrinking not counted). */
  runs: number;
  answered: number;
  /** Bad input refused with a clear 4xx or with diagnostics. */
  rejected: number;
  /** fast-check's report of the failure (seed, path, shrunk counterexample), when there is one. */
  failure?: string;
  elapsedMs: number;
}

export async function runProperty<T>(property: FuzzProperty<T>, options: RunOptions): Promise<PropertyReport> {
  const counts: Record<Outcome, number> = { answered: 0, rejected: 0 };
  const timeoutMs = options.caseTimeoutMs ?? 10_000;
  // After the first failure fast-check shrinks it; those reruns are not counted.
  let failed = false;
  const started = performance.now();
  const details = await fc.check(
    fc.asyncProperty(property.arbitrary, async (input) => {
      let outcome: Outcome;
      try {
        outcome = await withWatchdog(property.check(input), timeoutMs);
        assertNoPrototypePollution();
      } catch (error) {
        failed = true;
        throw error;
      }
      if (!failed) counts[outcome] += 1;
    }),
    {
      seed: options.seed,
      numRuns: options.numRuns,
      ...(options.timeLimitMs !== undefined
        ? { interruptAfterTimeLimit: options.timeLimitMs, markInterruptAsFailure: false }
        : {}),
    },
  );
  return {
    name: property.name,
    seed: options.seed,
    runs: details.failed ? details.numRuns : counts.answered + counts.rejected,
    answered: counts.answered,
    rejected: counts.rejected,
    ...(details.failed ? { failure: failureReport(details) } : {}),
    elapsedMs: performance.now() - started,
  };
}

function withWatchdog<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the case did not settle within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** fast-check's report (seed, path, counterexample) followed by the error the case threw. */
function failureReport<T>(details: fc.RunDetails<T>): string {
  const error = details.errorInstance;
  const why = error instanceof Error ? (error.stack ?? error.message) : String(error);
  const report = fc.defaultReportMessage(details) ?? 'failed';
  // Counterexamples can hold megabytes (long strings, deep nesting); the seed and path replay them.
  const shown = report.length > 20_000 ? `${report.slice(0, 20_000)}… (${report.length} characters)` : report;
  return `${shown}\nError: ${why.slice(0, 6_000)}`;
}
