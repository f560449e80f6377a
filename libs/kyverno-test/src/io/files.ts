import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { formatSize, errorMessage } from '@edict/foundation';
import { LoadError } from './load-error';
import { parseYamlDocuments, type YamlDocument } from './yaml-documents';

/** The largest input file read by default (policies, resources, test, values and user info files). */
export const DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024;

let maxFileSize = DEFAULT_MAX_FILE_SIZE;

/** Sets the largest input file read (the CLI's `--max-file-size` / EDICT_MAX_FILE_SIZE); 0 lifts the cap. */
export function setMaxFileSize(bytes: number): void {
  if (!Number.isInteger(bytes) || bytes < 0) throw new Error(`invalid input file size limit ${bytes}`);
  maxFileSize = bytes;
}

export function currentMaxFileSize(): number {
  return maxFileSize;
}

// Opening a FIFO for reading waits for a writer; non-blocking, it opens at once and is refused below.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** Why an input file could not be read: at `open` (with the system's error code) or while reading it. */
export class InputFileError extends Error {
  constructor(
    readonly stage: 'open' | 'read',
    readonly file: string,
    readonly detail: string,
    readonly code?: string,
  ) {
    super(`${file}: ${detail}`);
    this.name = 'InputFileError';
  }
}

/**
 * Reads a regular file as text, up to the input file size limit. Anything else (a directory, a
 * FIFO, a device such as a symlink to /dev/zero, a socket), a file over the limit (also one that
 * grows past it while read), and a missing or unreadable file become an InputFileError naming the
 * file, rather than a hang or an out-of-memory abort. Commands word the error their own way.
 */
export function readBoundedText(file: string): string {
  let fd: number;
  try {
    fd = openSync(file, OPEN_FLAGS);
  } catch (error) {
    throw new InputFileError('open', file, errorMessage(error), (error as NodeJS.ErrnoException).code);
  }
  try {
    const stats = fstatSync(fd);
    if (stats.isDirectory()) throw new InputFileError('read', file, 'is a directory, expected a file');
    if (!stats.isFile()) throw new InputFileError('read', file, `is ${fileType(stats)}, not a regular file`);
    const limit = maxFileSize;
    if (limit > 0 && stats.size > limit) throw tooLarge(file, `is ${stats.size} bytes`, limit);
    return readAll(fd, file, stats.size, limit);
  } catch (error) {
    if (error instanceof InputFileError) throw error;
    throw new InputFileError('read', file, errorMessage(error));
  } finally {
    closeSync(fd);
  }
}

/** readBoundedText, failing with a LoadError as the test and apply loaders report it. */
export function readText(file: string): string {
  try {
    return readBoundedText(file);
  } catch (error) {
    if (!(error instanceof InputFileError)) throw error;
    throw new LoadError(file, undefined, error.stage === 'open' ? openFailure(error) : error.detail);
  }
}

/** Reads to the end, refusing to hold more than `limit` bytes (the file may have grown since fstat). */
function readAll(fd: number, file: string, size: number, limit: number): string {
  let buffer = Buffer.allocUnsafe(Math.max(size, 0) + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (limit > 0 && length > limit) throw tooLarge(file, 'grew while read', limit);
      const grown = Buffer.allocUnsafe(limit > 0 ? Math.min(buffer.length * 2, limit + 1) : buffer.length * 2);
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    const read = readSync(fd, buffer, length, buffer.length - length, null);
    if (read === 0) break;
    length += read;
  }
  if (limit > 0 && length > limit) throw tooLarge(file, 'grew while read', limit);
  return buffer.toString('utf8', 0, length);
}

function tooLarge(file: string, what: string, limit: number): InputFileError {
  return new InputFileError(
    'read',
    file,
    `${what}, over the ${formatSize(limit)} limit for input files (--max-file-size or EDICT_MAX_FILE_SIZE)`,
  );
}

function openFailure(error: InputFileError): string {
  if (error.code === 'ENOENT') return 'file not found';
  if (error.code === 'EISDIR') return 'is a directory, expected a file';
  return error.detail;
}

function fileType(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a file';
}

export function readYamlFile(file: string): YamlDocument[] {
  return parseYamlDocuments(readText(file), file);
}

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
