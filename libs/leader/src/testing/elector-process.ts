/**
 * Spawns elector-main.cjs as a separate Node process (one replica) and collects its JSON events,
 * so tests can SIGKILL or SIGTERM a leader for real.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export interface ElectorProcessOptions {
  readonly identity: string;
  /** Kubeconfig YAML (e.g. `kubeconfigFor({ server: url })`). */
  readonly kubeconfig: string;
  readonly leaseName?: string;
  readonly leaseNamespace?: string;
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
  /** Watch the lease (default true). */
  readonly watch?: boolean;
}

export interface ElectorProcessEvent {
  readonly event: 'ready' | 'started' | 'stopped' | 'leader' | 'released' | 'log';
  readonly identity: string;
  /** Epoch ms in the child. */
  readonly at: number;
  readonly reason?: string;
  readonly leader?: string;
  readonly level?: string;
  readonly message?: string;
}

export interface ElectorProcess {
  readonly identity: string;
  readonly child: ChildProcess;
  readonly events: ElectorProcessEvent[];
  /** Resolves with the first event (already seen or coming) that matches; rejects after timeoutMs. */
  waitFor(match: (event: ElectorProcessEvent) => boolean, timeoutMs: number): Promise<ElectorProcessEvent>;
  /** Whether the process currently leads, by its last started/stopped event. */
  leading(): boolean;
  readonly exited: Promise<number | null>;
}

const here = __dirname;
/** The repository's TypeScript loader for child processes. */
const REGISTER_TS = join(here, '../../../../scripts/register-ts.cjs');

export function spawnElectorProcess(options: ElectorProcessOptions): ElectorProcess {
  const child = spawn(process.execPath, ['-r', REGISTER_TS, join(here, 'elector-main.cjs')], {
    cwd: here,
    env: {
      ...process.env,
      ELECTOR_IDENTITY: options.identity,
      ELECTOR_KUBECONFIG: options.kubeconfig,
      ELECTOR_LEASE_NAME: options.leaseName ?? 'edict-leader',
      ELECTOR_LEASE_NAMESPACE: options.leaseNamespace ?? 'default',
      ELECTOR_LEASE_DURATION_MS: String(options.leaseDurationMs ?? 3000),
      ELECTOR_RENEW_DEADLINE_MS: String(options.renewDeadlineMs ?? 2000),
      ELECTOR_RETRY_PERIOD_MS: String(options.retryPeriodMs ?? 250),
      ELECTOR_WATCH: String(options.watch ?? true),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: ElectorProcessEvent[] = [];
  const waiters = new Set<{
    match: (event: ElectorProcessEvent) => boolean;
    resolve: (event: ElectorProcessEvent) => void;
  }>();
  let buffered = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (!line.startsWith('{')) continue;
      const event = JSON.parse(line) as ElectorProcessEvent;
      events.push(event);
      for (const waiter of [...waiters]) {
        if (waiter.match(event)) {
          waiters.delete(waiter);
          waiter.resolve(event);
        }
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  return {
    identity: options.identity,
    child,
    events,
    exited,
    leading() {
      const last = [...events].reverse().find((e) => e.event === 'started' || e.event === 'stopped');
      return last?.event === 'started';
    },
    waitFor(match, timeoutMs) {
      const seen = events.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const waiter = { match, resolve: (event: ElectorProcessEvent) => (clearTimeout(timer), resolve(event)) };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`${options.identity}: no matching event within ${timeoutMs} ms; stderr: ${stderr}`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
  };
}
