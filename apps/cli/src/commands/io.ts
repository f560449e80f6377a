/** Where a command writes: machine output and results to `out`, progress and diagnostics to `err`. */
export interface CommandIO {
  out(text: string): void;
  err(text: string): void;
  /** Reads all of stdin (a `-` path); process stdin when absent. */
  readStdin?(): string;
}

export const processIO: CommandIO = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};
