/**
 * Load points: autocannon, in this process, keeping `connections` HTTPS connections alive and
 * POSTing the same review, each with a fresh uid (`[<id>]` in the body), as real requests have: the
 * controller names an admission report after the request's uid. A point's time is cut into slices that alternate between the targets
 * (bare, webhook, bare, webhook, ...), so a burst of other work on the machine hits both alike and
 * the ratios compare like with like. Latency percentiles come from every response's own timing
 * (fractional ms; autocannon's histogram keeps whole ms), leaving out each connection's first
 * response, which also pays the TLS handshake. Any error, non-2xx or unexpected body fails the run.
 */
import autocannon from 'autocannon';
import type { BenchChild } from './child-process';
import { percentile } from './harness';

const UID_FIELD = /"uid":"[^"]*"/;

export interface LoadTarget {
  name: string;
  port: number;
  /** The process serving it, for its CPU use. */
  process: BenchChild<unknown>;
  /**
   * Called after each of its turns: waits for work the server still does for the turn's requests
   * (audits after the answer), so it does not run into the next turn; resolves to the time waited.
   */
  settle?: () => Promise<number>;
}

export interface LoadOptions {
  path: string;
  /** The review, with `[<id>]` where each request gets its own uid. */
  body: string;
  /** The exact answer every response must carry, with `[<id>]` for its uid. */
  expectBody: string;
  servername: string;
  connections: number;
}

export interface LoadPoint {
  name: string;
  connections: number;
  requests: number;
  /**
   * Requests per second of the turns plus the time `settle` waited after them: requests whose
   * deferred work is done too. Equal to `answersPerSecond` for a target without `settle`.
   */
  requestsPerSecond: number;
  /** Requests answered per second of the turns alone. */
  answersPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU used over the point, as a share of one core: the server's process and this one (the generator). */
  serverCpu: number;
  generatorCpu: number;
  /** Server CPU per request, its deferred work (the settle after each turn) included. */
  serverCpuMsPerRequest: number;
  /** Mean time `settle` waited after a turn (includes its polling). */
  settleMsPerTurn?: number;
}

interface Slice {
  requests: number;
  seconds: number;
  latencies: number[];
  serverCpuMicros: number;
  /** Server CPU until the deferred work was done (the turn and its settle). */
  settledCpuMicros: number;
  generatorCpuMicros: number;
  wallMicros: number;
  settleMs?: number;
}

async function runSlice(target: LoadTarget, options: LoadOptions, seconds: number): Promise<Slice> {
  const latencies: number[] = [];
  const seen = new WeakSet<object>();
  const serverCpuBefore = await target.process.cpuMicros();
  const generatorCpuBefore = process.cpuUsage();
  const started = performance.now();
  const instance = autocannon({
    url: `https://127.0.0.1:${target.port}${options.path}`,
    servername: options.servername,
    connections: options.connections,
    pipelining: 1,
    duration: seconds,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: options.body,
    idReplacement: true,
    verifyBody: (body) => body.replace(UID_FIELD, '"uid":"[<id>]"') === options.expectBody,
  });
  instance.on('response', (client: object, _status: number, _bytes: number, responseTime: number) => {
    if (seen.has(client)) latencies.push(responseTime);
    else seen.add(client);
  });
  const result = await instance;
  const wallMicros = (performance.now() - started) * 1000;
  const generatorCpu = process.cpuUsage(generatorCpuBefore);
  const serverCpuMicros = (await target.process.cpuMicros()) - serverCpuBefore;

  const problems = {
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    mismatches: result.mismatches,
  };
  if (Object.values(problems).some((count) => count > 0))
    throw new Error(`${target.name} at ${options.connections} connections: ${JSON.stringify(problems)}`);
  const settleMs = target.settle ? await target.settle() : undefined;
  return {
    requests: result['2xx'],
    seconds: result.duration,
    latencies,
    serverCpuMicros,
    settledCpuMicros: (await target.process.cpuMicros()) - serverCpuBefore,
    generatorCpuMicros: generatorCpu.user + generatorCpu.system,
    wallMicros,
    ...(settleMs !== undefined ? { settleMs } : {}),
  };
}

/** Runs `targets` for `seconds` each at the same load, in `slices` alternating turns; one point per target. */
export async function runLoadPoints(
  targets: readonly LoadTarget[],
  options: LoadOptions,
  seconds: number,
  slices: number,
): Promise<LoadPoint[]> {
  const runs = targets.map(() => [] as Slice[]);
  for (let turn = 0; turn < slices; turn++)
    for (const [index, target] of targets.entries())
      runs[index]!.push(await runSlice(target, options, seconds / slices));
  return targets.map((target, index) => summarize(target.name, options.connections, runs[index]!));
}

function summarize(name: string, connections: number, slices: readonly Slice[]): LoadPoint {
  const sum = (pick: (slice: Slice) => number) => slices.reduce((total, slice) => total + pick(slice), 0);
  const latencies = slices.flatMap((slice) => slice.latencies).sort((a, b) => a - b);
  const wall = sum((slice) => slice.wallMicros);
  return {
    name,
    connections,
    requests: sum((slice) => slice.requests),
    requestsPerSecond: sum((slice) => slice.requests) / sum((slice) => slice.seconds + (slice.settleMs ?? 0) / 1000),
    answersPerSecond: sum((slice) => slice.requests) / sum((slice) => slice.seconds),
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    serverCpu: sum((slice) => slice.serverCpuMicros) / wall,
    generatorCpu: sum((slice) => slice.generatorCpuMicros) / wall,
    serverCpuMsPerRequest: sum((slice) => slice.settledCpuMicros) / 1000 / sum((slice) => slice.requests),
    ...(slices.some((slice) => slice.settleMs !== undefined)
      ? { settleMsPerTurn: sum((slice) => slice.settleMs ?? 0) / slices.length }
      : {}),
  };
}
