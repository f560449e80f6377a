/** Reading and writing the files `edict fix` rewrites: bounded reads, YAML in and out as Kyverno's CLI writes it. */
import { closeSync, fstatSync, openSync, readdirSync, readSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { parseAllDocuments, stringify, type Document } from 'yaml';
import { formatSize, type JsonValue } from '@edict/foundation';
import { currentMaxFileSize } from '@edict/kyverno-test';

/** A regular file as text, refused past the input file size limit (`--max-file-size`). */
export function readBounded(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new Error(`${path}: not a regular file`);
    const limit = currentMaxFileSize();
    if (limit > 0 && stats.size > limit) {
      throw new Error(`${path}: is ${stats.size} bytes, over the ${formatSize(limit)} limit for input files`);
    }
    const buffer = Buffer.alloc(stats.size);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, null);
      if (n === 0) break;
      read += n;
    }
    return buffer.toString('utf8', 0, read);
  } finally {
    closeSync(fd);
  }
}

export interface YamlDoc {
  readonly value: JsonValue;
  readonly source: Document;
}

/** The documents of a YAML file (empty ones dropped); the first syntax error throws, naming file, document and line. */
export function readYamlDocs(path: string): YamlDoc[] {
  const docs = parseAllDocuments(readBounded(path), { version: '1.1' });
  const list = Array.isArray(docs) ? docs : [docs];
  const out: YamlDoc[] = [];
  list.forEach((doc, index) => {
    const [error] = doc.errors;
    if (error) {
      const line = error.linePos?.[0].line;
      throw new Error(
        `${path} (document ${index + 1}${line ? `, line ${line}` : ''}): ${error.message.split('\n')[0]}`,
      );
    }
    const value = doc.toJS({ maxAliasCount: 100 }) as JsonValue | undefined;
    if (value !== null && value !== undefined) out.push({ value, source: doc });
  });
  return out;
}

/** YAML as Kyverno's CLI saves it (JSON to YAML): keys in order, lists at their key's indentation. */
export function toYaml(value: JsonValue): string {
  return stringify(value, { sortMapEntries: true, indentSeq: false, lineWidth: 0, version: '1.1' });
}

/** A document as it was written, behind its `---` marker. */
export function original(doc: YamlDoc): string {
  const text = doc.source.toString();
  return text.startsWith('---') ? text : `---\n${text}`;
}

/** Rewrites a file in place, keeping its permissions. */
export function save(path: string, text: string): void {
  writeFileSync(path, text);
}

/** Files named `fileName` below `dir`, walking folders as Kyverno does (symbolic links not followed). */
export function findNamed(dir: string, fileName: string, depth = 0): string[] {
  if (depth > 64) throw new Error(`${dir}: folders nested too deep`);
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findNamed(path, fileName, depth + 1));
    else if (entry.name === fileName) found.push(path);
  }
  return found;
}

/** `.yaml` and `.yml` files at or below `path` (a file or a folder), as Kyverno's filepath.Walk finds them. */
export function findYaml(path: string, depth = 0): string[] {
  if (depth > 64) throw new Error(`${path}: folders nested too deep`);
  const entries = (() => {
    try {
      return readdirSync(path, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
      throw error;
    }
  })();
  if (!entries) return isYaml(path) ? [path] : [];
  const found: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) found.push(...findYaml(child, depth + 1));
    else if (entry.isFile() && isYaml(child)) found.push(child);
  }
  return found;
}

const isYaml = (path: string) => ['.yaml', '.yml'].includes(extname(path));
