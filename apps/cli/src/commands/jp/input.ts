import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { errorMessage, formatSize } from '@edict/foundation';
import { currentMaxFileSize } from '@edict/kyverno-test';

/** The longest JMESPath expression `jp` reads (from an argument, a file or stdin). */
export const MAX_QUERY_LENGTH = 64 * 1024;

const overLimit = (what: string, limit: number) =>
  `${what}, over the ${formatSize(limit)} limit for input files (--max-file-size or EDICT_MAX_FILE_SIZE)`;

/** A file the command could not open (`open`) or read (`read`), with Kyverno's wording around the reason. */
export class InputFileError extends Error {
  constructor(
    readonly stage: 'open' | 'read',
    readonly file: string,
    readonly reason: string,
  ) {
    super(reason);
  }
}

// Opening a FIFO for reading waits for a writer; non-blocking, it opens at once and is refused below.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** A regular file's text, up to the input file size limit (`--max-file-size`). */
export function readInputFile(file: string): string {
  let fd: number;
  try {
    fd = openSync(file, OPEN_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file or directory' : errorMessage(error);
    throw new InputFileError('open', file, `open ${file}: ${reason}`);
  }
  try {
    const stats = fstatSync(fd);
    if (stats.isDirectory()) throw new InputFileError('read', file, `read ${file}: is a directory`);
    if (!stats.isFile()) throw new InputFileError('read', file, `read ${file}: not a regular file`);
    const limit = currentMaxFileSize();
    if (limit > 0 && stats.size > limit)
      throw new InputFileError('read', file, overLimit(`is ${stats.size} bytes`, limit));
    const buffer = Buffer.allocUnsafe(limit > 0 ? Math.min(stats.size, limit) + 1 : stats.size + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) throw new InputFileError('read', file, overLimit('grew while read', limit));
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    return buffer.toString('utf8', 0, length);
  } catch (error) {
    if (error instanceof InputFileError) throw error;
    throw new InputFileError('read', file, errorMessage(error));
  } finally {
    closeSync(fd);
  }
}

/** Where `jp` reads what is piped in; specs replace `read`. */
export const standardInput = {
  /** All of stdin as text, refused past `limit` bytes (0: no limit). */
  read(limit: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let length = 0;
      const stream = process.stdin;
      const onData = (chunk: Buffer) => {
        length += chunk.length;
        if (limit > 0 && length > limit) {
          cleanup();
          stream.pause();
          reject(new Error(overLimit('standard input is larger', limit)));
          return;
        }
        chunks.push(chunk);
      };
      const onEnd = () => {
        cleanup();
        resolve(Buffer.concat(chunks).toString('utf8'));
      };
      const onError = (error: Error) => {
        cleanup();
        reject(error);
      };
      const cleanup = () => {
        stream.off('data', onData);
        stream.off('end', onEnd);
        stream.off('error', onError);
      };
      stream.on('data', onData);
      stream.on('end', onEnd);
      stream.on('error', onError);
    });
  },
};

/** Refuses an expression longer than MAX_QUERY_LENGTH, naming where it came from. */
export function checkQueryLength(query: string, source: string): void {
  if (query.length > MAX_QUERY_LENGTH)
    throw new Error(
      `${source}: the JMESPath expression is ${query.length} characters long, over the ${MAX_QUERY_LENGTH} limit`,
    );
}

/** The input size limit in force (`--max-file-size`), also for what is piped in. */
export const currentLimit = (): number => currentMaxFileSize();
