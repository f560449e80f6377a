/**
 * ProcessRunner over child_process: the program runs in its own process group so that a timeout
 * kills what it started too (kubectl under `sh -c`); each stream is capped.
 */
import { spawn } from 'node:child_process';
import type { ProcessRequest, ProcessResult, ProcessRunner } from './process-runner';

export interface ChildProcessRunnerOptions {
  /** Bytes kept of each of stdout and stderr (default 1 MiB); the rest is dropped with a marker. */
  readonly maxOutputBytes?: number;
}

export class ChildProcessRunner implements ProcessRunner {
  private readonly maxOutputBytes: number;

  constructor(options: ChildProcessRunnerOptions = {}) {
    this.maxOutputBytes = options.maxOutputBytes ?? 1024 * 1024;
  }

  run(request: ProcessRequest): Promise<ProcessResult> {
    return new Promise((resolve) => {
      const stdout = new CappedBuffer(this.maxOutputBytes);
      const stderr = new CappedBuffer(this.maxOutputBytes);
      let timedOut = false;
      let settled = false;
      const child = spawn(request.command, [...request.args], {
        cwd: request.cwd,
        env: { ...request.env },
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const killGroup = (): void => {
        if (child.pid === undefined) return;
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      };
      const timer = setTimeout(
        () => {
          timedOut = true;
          killGroup();
        },
        Math.max(1, request.timeoutMs),
      );
      child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
      const finish = (result: Omit<ProcessResult, 'stdout' | 'stderr' | 'timedOut'>): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...result, stdout: stdout.text(), stderr: stderr.text(), timedOut });
      };
      child.on('error', (error) => finish({ exitCode: null, startError: error.message }));
      child.on('close', (code, signal) => {
        // The shell may exit while a background child still runs: end the group with it.
        killGroup();
        finish({ exitCode: code, signal: signal ?? undefined });
      });
    });
  }
}

class CappedBuffer {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private dropped = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    const room = this.limit - this.size;
    if (room <= 0) {
      this.dropped += chunk.length;
      return;
    }
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(kept);
    this.size += kept.length;
    this.dropped += chunk.length - kept.length;
  }

  text(): string {
    const text = Buffer.concat(this.chunks).toString('utf8');
    return this.dropped > 0 ? `${text}\n... (${this.dropped} bytes dropped)` : text;
  }
}
