/**
 * One controller replica as its own process, as a Pod's container runs it: this same script forked
 * with the controller's role, configured only through the environment, started and stopped by
 * the controller's own `main` code (`runFromEnvironment`: SIGTERM drains, SIGKILL does not). Its
 * output goes to a log file per replica, for reading after a run.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { runFromEnvironment } from '@edict/controller-runtime';
import { loadControllerConfig, startController } from '@edict/admission-controller';
import { loadBackgroundConfig, startBackgroundController } from '@edict/background-controller';
import { loadCleanupConfig, startCleanupController } from '@edict/cleanup-controller';
import { loadReportsConfig, startReportsController } from '@edict/reports-controller';
import { CHAOS_NAMESPACE, CHAOS_SERVICE } from './cluster';

export const CONTROLLER_KINDS = ['admission', 'background', 'reports', 'cleanup'] as const;
export type ControllerKind = (typeof CONTROLLER_KINDS)[number];

const ROLE_PREFIX = 'controller:';
const ROLE_VARIABLE = 'EDICT_BENCH_ROLE';

/** Each controller's main, and the variables naming its port and whether it serves HTTPS. */
const CONTROLLERS: Record<ControllerKind, { run: () => void; portVariable: string; tls: boolean }> = {
  admission: {
    run: () => runFromEnvironment('AdmissionController', loadControllerConfig, (config) => startController(config)),
    portVariable: 'EDICT_WEBHOOK_PORT',
    tls: true,
  },
  background: {
    run: () => runFromEnvironment('BackgroundController', loadBackgroundConfig, (c) => startBackgroundController(c)),
    portVariable: 'EDICT_BACKGROUND_PORT',
    tls: false,
  },
  reports: {
    run: () => runFromEnvironment('ReportsController', loadReportsConfig, (config) => startReportsController(config)),
    portVariable: 'EDICT_REPORTS_PORT',
    tls: false,
  },
  cleanup: {
    run: () => runFromEnvironment('CleanupController', loadCleanupConfig, (config) => startCleanupController(config)),
    portVariable: 'EDICT_CLEANUP_PORT',
    tls: true,
  },
};

/** In a forked replica: runs its controller's main and returns true; false in any other process. */
export function runControllerRole(): boolean {
  const role = process.env[ROLE_VARIABLE];
  if (!role?.startsWith(ROLE_PREFIX)) return false;
  CONTROLLERS[role.slice(ROLE_PREFIX.length) as ControllerKind].run();
  return true;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface ReplicaSettings {
  kind: ControllerKind;
  /** The replica's name: its Lease identity and log file. */
  name: string;
  kubeconfigPath: string;
  logDir: string;
  /** Extra variables (a scenario's own settings). */
  env?: Record<string, string>;
}

export interface ReplicaExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** performance.now() in the parent when it exited. */
  at: number;
}

export class ControllerProcess {
  readonly exited: Promise<ReplicaExit>;

  private constructor(
    readonly settings: ReplicaSettings,
    readonly port: number,
    private readonly child: ChildProcess,
  ) {
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() })),
    );
  }

  static async start(settings: ReplicaSettings): Promise<ControllerProcess> {
    const port = await freePort();
    const log = openSync(join(settings.logDir, `${settings.name}.log`), 'a');
    const controller = CONTROLLERS[settings.kind];
    const child = fork(process.argv[1]!, [], {
      env: {
        ...process.env,
        [ROLE_VARIABLE]: `${ROLE_PREFIX}${settings.kind}`,
        POD_NAMESPACE: CHAOS_NAMESPACE,
        EDICT_KUBE_SOURCE: 'kubeconfig',
        KUBECONFIG: settings.kubeconfigPath,
        EDICT_LEASE_IDENTITY: settings.name,
        EDICT_SERVICE_NAME: CHAOS_SERVICE,
        EDICT_WEBHOOK_HOST: '127.0.0.1',
        EDICT_BACKGROUND_HOST: '127.0.0.1',
        EDICT_REPORTS_HOST: '127.0.0.1',
        EDICT_CLEANUP_HOST: '127.0.0.1',
        [controller.portVariable]: String(port),
        ...settings.env,
      },
      stdio: ['ignore', log, log, 'ipc'],
    });
    closeSync(log);
    return new ControllerProcess(settings, port, child);
  }

  get name(): string {
    return this.settings.name;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  signal(signal: 'SIGTERM' | 'SIGKILL'): void {
    this.child.kill(signal);
  }

  /** Waits until /readyz answers 2xx (rejects after `timeoutMs` or if the process exits). */
  async waitReady(timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      if (!this.running) throw new Error(`${this.name} exited before it was ready (see its log)`);
      if (await this.ready()) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`${this.name} not ready after ${timeoutMs} ms (see its log)`);
  }

  /** SIGKILL if still running; waits for the exit. */
  async kill(): Promise<void> {
    if (this.running) this.child.kill('SIGKILL');
    await this.exited;
  }

  private ready(): Promise<boolean> {
    const tls = CONTROLLERS[this.settings.kind].tls;
    return new Promise((resolve) => {
      const options = { host: '127.0.0.1', port: this.port, path: '/readyz', agent: false, timeout: 2_000 };
      const request = tls
        ? httpsRequest({ ...options, rejectUnauthorized: false }, answer)
        : httpRequest(options, answer);
      function answer(response: { statusCode?: number; resume(): void }) {
        response.resume();
        resolve(response.statusCode === 200);
      }
      request.on('timeout', () => request.destroy());
      request.on('error', () => resolve(false));
      request.end();
    });
  }
}
