import { readFileSync, statSync } from 'node:fs';
import { LoadError, describeError } from './load-error';
import { parseYamlDocuments, type YamlDocument } from './yaml-documents';

/** Reads a file as text; a missing or unreadable file becomes a LoadError naming the file. */
export function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'file not found'
        : code === 'EISDIR'
          ? 'is a directory, expected a file'
          : describeError(error);
    throw new LoadError(file, undefined, reason);
  }
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
