/**
 * A small benchmark harness: candidates timed in turn, round after round, by CPU time, with per-call
 * statistics per candidate. Results are only meaningful as ratios against a baseline measured in
 * the same run, on the same machine.
 */
export interface Measurement {
  name: string;
  calls: number;
  /** Median over the rounds of the CPU time per call, in microseconds. */
  medianUs: number;
  /** 99th percentile of the batches' wall time per call, in microseconds. */
  p99Us: number;
  callsPerSecond: number;
  /**
   * The CPU time per call of each round, in microseconds. Rounds of measurements taken together
   * with the same index ran back to back, so their ratios pair up.
   */
  roundsUs: number[];
}

/** One thing to time and its name, for `measureInterleaved`. */
export interface Candidate {
  name: string;
  call: () => unknown;
}

export interface InterleaveOptions {
  warmupMs?: number;
  /** How many times each candidate is timed, in turn with the others. */
  rounds?: number;
  /** How long each candidate runs in each round. */
  sliceMs?: number;
  batch?: number;
}

/**
 * Times candidates in rounds, each candidate in turn for about `sliceMs` per round, by CPU time
 * (this process, all its threads): on a shared machine whose speed drifts during the run, the
 * candidates of one round meet the same conditions, so ratios taken round by round (`pairedRatio`)
 * stay steady where figures timed one after another for seconds each do not. `medianUs` is the
 * median over rounds; `p99Us` comes from the wall time of every batch.
 */
export async function measureInterleaved(
  candidates: readonly Candidate[],
  { warmupMs = 300, rounds = 15, sliceMs = 150, batch = 10 }: InterleaveOptions = {},
): Promise<Measurement[]> {
  for (const candidate of candidates) await runFor(candidate.call, warmupMs, batch);
  const perRound = candidates.map(() => [] as number[]);
  const batches = candidates.map(() => [] as number[]);
  const calls = candidates.map(() => 0);
  for (let round = 0; round < rounds; round++) {
    for (const [index, { call }] of candidates.entries()) {
      const deadline = performance.now() + sliceMs;
      const cpuStart = process.cpuUsage();
      let sliceCalls = 0;
      while (performance.now() < deadline || sliceCalls === 0) {
        const start = process.hrtime.bigint();
        for (let i = 0; i < batch; i++) {
          const result = call();
          if (result instanceof Promise) await result;
        }
        batches[index]!.push(Number(process.hrtime.bigint() - start) / 1000 / batch);
        sliceCalls += batch;
      }
      const cpu = process.cpuUsage(cpuStart);
      perRound[index]!.push((cpu.user + cpu.system) / sliceCalls);
      calls[index]! += sliceCalls;
    }
  }
  return candidates.map(({ name }, index) => {
    const median = medianOf(perRound[index]!);
    const sorted = [...batches[index]!].sort((a, b) => a - b);
    return {
      name,
      calls: calls[index]!,
      medianUs: median,
      p99Us: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!,
      callsPerSecond: 1e6 / median,
      roundsUs: perRound[index]!,
    };
  });
}

/**
 * `measured` against `baseline`: the median of their round-by-round ratios when both were timed
 * in the same rounds, otherwise the ratio of their medians.
 */
export function pairedRatio(measured: Measurement, baseline: Measurement): number {
  const [a, b] = [measured.roundsUs, baseline.roundsUs];
  if (a.length !== b.length) return measured.medianUs / baseline.medianUs;
  return medianOf(a.map((value, round) => value / b[round]!));
}

function medianOf(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
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
      pairedRatio(row, baseline).toFixed(2),
    ]),
  ];
  return formatColumns(lines);
}

/** Rows of cells (the first is the header) as left-aligned columns two spaces apart. */
export function formatColumns(lines: string[][]): string {
  const widths = lines[0].map((_, column) => Math.max(...lines.map((line) => line[column].length)));
  return lines.map((line) => line.map((cell, column) => cell.padEnd(widths[column])).join('  ')).join('\n');
}
