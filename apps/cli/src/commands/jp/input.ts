import { InputFileError, readBoundedText } from '@edict/kyverno-test';
import { readProcessStdin } from '../../apply/stdin';

/** The longest JMESPath expression `jp` reads (from an argument, a file or stdin). */
export const MAX_QUERY_LENGTH = 64 * 1024;

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

/** Where `jp` reads what is piped in: the CLI's one stdin reader, bounded by `--max-file-size`; specs replace `read`. */
export const standardInput = {
  read: (): Promise<string> => Promise.resolve(readProcessStdin()),
};

/** Refuses an expression longer than MAX_QUERY_LENGTH, naming where it came from. */
export function checkQueryLength(query: string, source: string): void {
  if (query.length > MAX_QUERY_LENGTH)
    throw new Error(
      `${source}: the JMESPath expression is ${query.length} characters long, over the ${MAX_QUERY_LENGTH} limit`,
    );
}
