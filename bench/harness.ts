/**
 * A small benchmark harness: warm up, then time batches of calls until a time budget is spent, and
 * report per-call statistics from the batch samples. Results are only meaningful as ratios against a
 * baseline measured in the same run, on the same machine.
 */
export interface Measurement {
  name: string;
  calls: number;
  /** Median time per call over the batch samples, in microseconds. */
  medianUs: number;
  /** 99th percentile of the batch samples' per-call time, in microseconds. */
  p99Us: number;
  callsPerSecond: number;
}

export interface MeasureOptions {
  warmupMs?: number;
  budgetMs?: number;
  /** Calls per timed sample; larger batches hide timer resolution for fast operations. */
  batch?: number;
}

export async function measure(
  name: string,
  call: () => unknown,
  { warmupMs = 300, budgetMs = 2000, batch = 20 }: MeasureOptions = {},
): Promise<Measurement> {
  await runFor(call, warmupMs, batch);
  const samples: number[] = [];
  const deadline = performance.now() + budgetMs;
  let calls = 0;
  while (performance.now() < deadline || samples.length < 5) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) {
      const result = call();
      if (result instanceof Promise) await result;
    }
    samples.push(Number(process.hrtime.bigint() - start) / 1000 / batch);
    calls += batch;
  }
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)];
  return {
    name,
    calls,
    medianUs: median,
    p99Us: samples[Math.min(samples.length - 1, Math.floor(samples.length * 0.99))],
    callsPerSecond: 1e6 / median,
  };
}

async function runFor(call: () => unknown, ms: number, batch: number): Promise<void> {
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    for (let i = 0; i < batch; i++) {
      const result = call();
      if (result instanceof Promise) await result;
    }
  }
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

export function formatTable(rows: Measurement[], baseline: Measurement): string {
  const lines = [
    ['benchmark', 'median µs/call', 'p99 µs/call', 'calls/s', `× ${baseline.name}`],
    ...rows.map((row) => [
      row.name,
      row.medianUs.toFixed(2),
      row.p99Us.toFixed(2),
      Math.round(row.callsPerSecond).toLocaleString('en-US'),
      (row.medianUs / baseline.medianUs).toFixed(2),
    ]),
  ];
  return formatColumns(lines);
}

/** Rows of cells (the first is the header) as left-aligned columns two spaces apart. */
export function formatColumns(lines: string[][]): string {
  const widths = lines[0].map((_, column) => Math.max(...lines.map((line) => line[column].length)));
  return lines.map((line) => line.map((cell, column) => cell.padEnd(widths[column])).join('  ')).join('\n');
}
