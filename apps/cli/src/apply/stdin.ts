import { mkdtempSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { currentMaxFileSize } from '@edict/kyverno-test';

/** Kyverno's stdin path: `-` as the policy or the resource path reads the documents from stdin. */
export const STDIN_PATH = '-';

/** Reads all of stdin (file descriptor 0), failing past `--max-file-size` as a file that large would. */
export function readProcessStdin(): string {
  const limit = currentMaxFileSize();
  const chunks: Buffer[] = [];
  let total = 0;
  const buffer = Buffer.alloc(64 * 1024);
  for (;;) {
    let read: number;
    try {
      read = readSync(0, buffer, 0, buffer.length, null);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') continue;
      if ((error as NodeJS.ErrnoException).code === 'EOF') break;
      throw error;
    }
    if (read === 0) break;
    total += read;
    if (limit > 0 && total > limit) throw new Error(`stdin: larger than --max-file-size (${limit} bytes)`);
    chunks.push(Buffer.from(buffer.subarray(0, read)));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The paths with `-` replaced by a file holding what stdin gave, so stdin is read like any file (and
 * named `stdin.yaml` in messages). `cleanup` removes that file.
 */
export function withStdinFile(
  paths: readonly string[],
  readStdin: () => string,
): { paths: string[]; cleanup: () => void } {
  if (!paths.includes(STDIN_PATH)) return { paths: [...paths], cleanup: () => undefined };
  const text = readStdin();
  const limit = currentMaxFileSize();
  if (limit > 0 && Buffer.byteLength(text) > limit)
    throw new Error(`stdin: larger than --max-file-size (${limit} bytes)`);
  const dir = mkdtempSync(join(tmpdir(), 'edict-stdin-'));
  const file = join(dir, 'stdin.yaml');
  writeFileSync(file, text);
  return {
    paths: paths.map((path) => (path === STDIN_PATH ? file : path)),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
