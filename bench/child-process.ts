/**
 * Benchmark servers run in child processes of the bench itself (the same bundle, forked with a role),
 * so the load generator and the server under test each get a core of their own. A tiny IPC
 * protocol: the parent sends `start` with the role's input, the child answers `ready` with what the
 * role reports (or `failed`), then answers `cpu` queries and the role's own `call`s (matched by id,
 * so several may be in flight) until it is told to `stop`.
 */
import { fork, type ChildProcess } from 'node:child_process';

const ROLE_VARIABLE = 'EDICT_BENCH_ROLE';

type ToChild =
  | { type: 'start'; input: unknown }
  | { type: 'cpu' }
  | { type: 'call'; id: number; command: string; input: unknown }
  | { type: 'stop' };
type FromChild =
  | { type: 'ready'; report: unknown }
  | { type: 'failed'; message: string }
  | { type: 'cpu'; micros: number }
  | { type: 'answer'; id: number; value?: unknown; error?: string }
  | { type: 'stopped' };

/** A command a started role answers for the parent while it runs. */
export type RoleCommand = (input: unknown) => Promise<unknown>;

/** What a role does in its child: start from the parent's input, report, answer commands, and stop on request. */
export interface ChildRoleRunner {
  start(input: unknown): Promise<{ report: unknown; stop(): Promise<void>; commands?: Record<string, RoleCommand> }>;
}

/** The role this process was forked for, if it is a benchmark child. */
export function benchChildRole(): string | undefined {
  return process.env[ROLE_VARIABLE];
}

/** Child side: runs `runner` under the parent's control; exits when told to stop or when orphaned. */
export function serveAsChild(runner: ChildRoleRunner): void {
  const send = (message: FromChild) => process.send!(message);
  let stop: (() => Promise<void>) | undefined;
  let commands: Record<string, RoleCommand> = {};
  process.on('disconnect', () => process.exit(0));
  process.on('message', (message: ToChild) => {
    if (message.type === 'start') {
      runner.start(message.input).then(
        (started) => {
          stop = started.stop;
          commands = started.commands ?? {};
          send({ type: 'ready', report: started.report });
        },
        (error: Error) => send({ type: 'failed', message: error.stack ?? String(error) }),
      );
    } else if (message.type === 'cpu') {
      const usage = process.cpuUsage();
      send({ type: 'cpu', micros: usage.user + usage.system });
    } else if (message.type === 'call') {
      const { id, command } = message;
      const run = commands[command] ?? (() => Promise.reject(new Error(`no command ${command}`)));
      run(message.input).then(
        (value) => send({ type: 'answer', id, value }),
        (error: Error) => send({ type: 'answer', id, error: error.stack ?? String(error) }),
      );
    } else if (message.type === 'stop') {
      void (stop?.() ?? Promise.resolve())
        .catch(() => undefined)
        .then(() => {
          send({ type: 'stopped' });
          process.disconnect();
        });
    }
  });
}

/** Parent side: one forked child. */
export class BenchChild<Report> {
  private nextCallId = 0;

  private constructor(
    readonly role: string,
    private readonly child: ChildProcess,
    readonly report: Report,
  ) {}

  /**
   * Forks this same script as `role` (with Node's `execArgv` added, e.g. `--expose-gc`), starts it
   * with `input` and waits for its report.
   */
  static async start<Report>(
    role: string,
    input: unknown,
    { timeoutMs = 60_000, execArgv = [] }: { timeoutMs?: number; execArgv?: string[] } = {},
  ): Promise<BenchChild<Report>> {
    const child = fork(process.argv[1]!, [], {
      env: { ...process.env, [ROLE_VARIABLE]: role },
      execArgv: [...process.execArgv, ...execArgv],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    try {
      const report = await new Promise<Report>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${role} child: not ready after ${timeoutMs} ms`)), timeoutMs);
        child.once('exit', (code) => reject(new Error(`${role} child exited (code ${code}) before it was ready`)));
        child.on('message', (message: FromChild) => {
          if (message.type === 'ready') resolve(message.report as Report);
          else if (message.type === 'failed') reject(new Error(`${role} child failed: ${message.message}`));
          if (message.type === 'ready' || message.type === 'failed') clearTimeout(timer);
        });
        child.send({ type: 'start', input } satisfies ToChild);
      });
      child.removeAllListeners('exit');
      return new BenchChild(role, child, report);
    } catch (error) {
      child.kill();
      throw error;
    }
  }

  /** CPU time (user + system, µs) the child has used so far. */
  cpuMicros(): Promise<number> {
    return this.ask<number>('cpu', (message) => (message.type === 'cpu' ? message.micros : undefined));
  }

  /** Runs one of the role's commands in the child and resolves with its answer. */
  call<T>(command: string, input: unknown = {}): Promise<T> {
    const id = this.nextCallId++;
    return new Promise<T>((resolve, reject) => {
      const listener = (message: FromChild) => {
        if (message.type !== 'answer' || message.id !== id) return;
        this.child.off('message', listener);
        if (message.error !== undefined) reject(new Error(`${this.role} child, ${command}: ${message.error}`));
        else resolve(message.value as T);
      };
      this.child.on('message', listener);
      this.child.send({ type: 'call', id, command, input } satisfies ToChild);
    });
  }

  /** Asks the child to stop cleanly; kills it if it does not exit within `timeoutMs`. */
  async stop(timeoutMs = 10_000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.send({ type: 'stop' } satisfies ToChild);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    await exited;
    clearTimeout(timer);
  }

  private ask<T>(type: 'cpu', pick: (message: FromChild) => T | undefined): Promise<T> {
    return new Promise<T>((resolve) => {
      const listener = (message: FromChild) => {
        const value = pick(message);
        if (value === undefined) return;
        this.child.off('message', listener);
        resolve(value);
      };
      this.child.on('message', listener);
      this.child.send({ type } satisfies ToChild);
    });
  }
}
