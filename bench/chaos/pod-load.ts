/**
 * Admission load through the API server, as users make it: Pod creates (each a new name from
 * `generateName`) sent at a fixed rate over kept-alive connections, each answered after the API
 * server has called the webhooks. A create answered 201 was admitted; anything else (a webhook
 * call that failed under failurePolicy Fail, a timeout) is a failed admission, kept with the
 * time it was answered so a run can tell when failures happened.
 */
import { Agent, request } from 'node:http';
import { LOAD_NAMESPACE } from './cluster';

export interface LoadFailure {
  /** ms since the load started. */
  atMs: number;
  status: number;
  message: string;
}

export interface LoadTally {
  sent: number;
  admitted: number;
  failed: number;
  /** The first failures, for the report. */
  failures: LoadFailure[];
  seconds: number;
}

const KEPT_FAILURES = 20;
/** Creates waiting for an answer at once, beyond which ticks skip sending (and the rate drops, visibly). */
const MAX_IN_FLIGHT = 256;
const TICK_MS = 20;

const POD = JSON.stringify({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { generateName: 'load-', namespace: LOAD_NAMESPACE, labels: { app: 'chaos' } },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
});

/** A kube Status body's message, or the body itself. */
function statusMessage(body: string): string {
  try {
    return (JSON.parse(body) as { message?: string }).message ?? body;
  } catch {
    return body;
  }
}

export class PodLoad {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: MAX_IN_FLIGHT });
  private readonly tally: LoadTally = { sent: 0, admitted: 0, failed: 0, failures: [], seconds: 0 };
  private inFlight = 0;
  private timer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  private idle: (() => void) | undefined;

  constructor(
    private readonly apiServerUrl: string,
    private readonly perSecond: number,
  ) {}

  start(): void {
    this.startedAt = performance.now();
    let due = 0;
    this.timer = setInterval(() => {
      const elapsed = (performance.now() - this.startedAt) / 1000;
      due = Math.floor(elapsed * this.perSecond);
      while (this.tally.sent < due && this.inFlight < MAX_IN_FLIGHT) this.send();
    }, TICK_MS);
  }

  /** Stops sending, waits for the answers still due and returns the tally. */
  async stop(): Promise<LoadTally> {
    clearInterval(this.timer);
    this.tally.seconds = (performance.now() - this.startedAt) / 1000;
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.idle = resolve));
    this.agent.destroy();
    return this.tally;
  }

  private send(): void {
    this.tally.sent++;
    this.inFlight++;
    const url = new URL(`/api/v1/namespaces/${LOAD_NAMESPACE}/pods`, this.apiServerUrl);
    const call = request(
      url,
      { method: 'POST', agent: this.agent, headers: { 'content-type': 'application/json' }, timeout: 60_000 },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          if (status === 201) this.tally.admitted++;
          else this.fail(status, statusMessage(body));
          this.done();
        });
      },
    );
    call.on('timeout', () => call.destroy(new Error('no answer within 60 s')));
    call.on('error', (error) => {
      this.fail(0, error.message);
      this.done();
    });
    call.end(POD);
  }

  private fail(status: number, message: string): void {
    this.tally.failed++;
    if (this.tally.failures.length < KEPT_FAILURES)
      this.tally.failures.push({ atMs: Math.round(performance.now() - this.startedAt), status, message });
  }

  private done(): void {
    this.inFlight--;
    if (this.inFlight === 0) this.idle?.();
  }
}
