/** Running a program for `script` and `command` operations. */
export interface ProcessRequest {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** The whole environment of the process (nothing is inherited implicitly). */
  readonly env: Readonly<Record<string, string>>;
  /** Killed (with its process group) after this long. */
  readonly timeoutMs: number;
}

export interface ProcessResult {
  /** Exit code, or null when it ended by a signal or did not start. */
  readonly exitCode: number | null;
  readonly signal?: string;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  /** The program could not be started (ENOENT, ...). */
  readonly startError?: string;
}

export interface ProcessRunner {
  run(request: ProcessRequest): Promise<ProcessResult>;
}

/** Go's exec error text, which chainsaw puts in `$error`: `exit status 2`, `signal: killed`. */
export function processErrorText(result: ProcessResult): string | null {
  if (result.startError !== undefined) return result.startError;
  if (result.timedOut) return 'signal: killed';
  if (result.signal)
    return `signal: ${result.signal === 'SIGKILL' ? 'killed' : result.signal.replace(/^SIG/, '').toLowerCase()}`;
  if (result.exitCode !== 0) return `exit status ${result.exitCode}`;
  return null;
}
