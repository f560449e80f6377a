/**
 * The admission replicas' own counts over a load round: every running replica's /metrics is read
 * every second, and per replica the growth from its first to its last successful read is summed.
 * Reviews/s come from `kyverno_admission_requests_total`, what the replicas actually answered,
 * rather than from what the load meant to send. A replica killed mid-round keeps its last read (up
 * to a second of its reviews is not counted).
 */
import { request } from 'node:https';
import type { ControllerProcess } from './controller-process';

/** The metrics summed, by the name printed. */
export const COUNTED_METRICS = {
  reviews: 'kyverno_admission_requests_total',
  heldReviews: 'edict_audit_backpressure_held_reviews',
  releasedAtBound: 'edict_audit_backpressure_released_at_bound',
  auditDropped: 'edict_audit_queue_dropped',
} as const;

export type ReplicaCounts = Record<keyof typeof COUNTED_METRICS, number>;

const POLL_MS = 1_000;

/** Sum of a metric's samples over all label sets (0 when absent). */
export function metricTotal(metrics: string, name: string): number {
  let total = 0;
  for (const line of metrics.split('\n'))
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `))
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
  return total;
}

function countsOf(metrics: string): ReplicaCounts {
  const entries = Object.entries(COUNTED_METRICS).map(([key, name]) => [key, metricTotal(metrics, name)]);
  return Object.fromEntries(entries) as ReplicaCounts;
}

function readMetrics(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const call = request(
      { host: '127.0.0.1', port, path: '/metrics', rejectUnauthorized: false, agent: false, timeout: 2_000 },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve(response.statusCode === 200 ? body : undefined));
      },
    );
    call.on('timeout', () => call.destroy());
    call.on('error', () => resolve(undefined));
    call.end();
  });
}

export class ReplicaCounters {
  private readonly first = new Map<string, ReplicaCounts>();
  private readonly last = new Map<string, ReplicaCounts>();
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> = Promise.resolve();

  constructor(private readonly replicas: () => readonly ControllerProcess[]) {}

  async start(): Promise<void> {
    await this.read();
    this.timer = setInterval(() => (this.reading = this.read()), POLL_MS);
  }

  /** A last read, then the growth summed over replicas. */
  async stop(): Promise<ReplicaCounts> {
    clearInterval(this.timer);
    await this.reading;
    await this.read();
    const total = countsOf('');
    for (const [name, last] of this.last) {
      const first = this.first.get(name)!;
      for (const key of Object.keys(total) as Array<keyof ReplicaCounts>) total[key] += last[key] - first[key];
    }
    return total;
  }

  private async read(): Promise<void> {
    await Promise.all(
      this.replicas().map(async (replica) => {
        const metrics = await readMetrics(replica.port);
        if (metrics === undefined) return;
        const counts = countsOf(metrics);
        if (!this.first.has(replica.name)) this.first.set(replica.name, counts);
        this.last.set(replica.name, counts);
      }),
    );
  }
}
