import { formatSize } from '@edict/foundation';
import { currentMaxFileSize, InputFileError, readBoundedText } from '@edict/kyverno-test';

/** The longest JMESPath expression `jp` reads (from an argument, a file or stdin). */
export const MAX_QUERY_LENGTH = 64 * 1024;

const overLimit = (what: string, limit: number) =>
  `${what}, over the ${formatSize(limit)} limit for input files (--max-file-size or EDICT_MAX_FILE_SIZE)`;

/**
 * A query or input file's text, bounded as every CLI input file is. Errors are worded as Kyverno's jp
 * words them: `failed open file F: open F: <reason>`, or `<readFailure> file F: <reason>`.
 */
export function readJpFile(file: string, readFailure: string): string {
  try {
    return readBoundedText(file);
  } catch (error) {
    if (!(error instanceof InputFileError)) throw error;
    if (error.stage === 'read') throw new Error(`${readFailure} file ${file}: ${error.detail}`);
    const reason = error.code === 'ENOENT' ? 'no such file or directory' : error.detail;
    throw new Error(`failed open file ${file}: open ${file}: ${reason}`);
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
