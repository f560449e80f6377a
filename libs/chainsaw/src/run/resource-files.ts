/** The objects an operation's `file` names: relative to the test folder, a glob allowed, every document. */
import { readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';
import { isObject, type JsonObject } from '@edict/foundation';
import { ChainsawLoadError } from '../load/fields';
import { readDocuments } from '../load/load-test';

const MAX_MATCHES = 1000;

export function readResourceFiles(pattern: string, folder: string): JsonObject[] {
  const files = expandGlob(pattern, folder);
  if (files.length === 0) throw new Error(`file ${pattern}: no such file in ${folder}`);
  const objects: JsonObject[] = [];
  for (const file of files) {
    for (const doc of readDocuments(file)) {
      if (!isObject(doc.value)) {
        throw new ChainsawLoadError(file, '', 'expected an object', doc.line, doc.index);
      }
      objects.push(doc.value);
    }
  }
  return objects;
}

/** `*` and `?` within one path segment (no `**`); a pattern without them is the file itself. */
export function expandGlob(pattern: string, folder: string): string[] {
  const absolute = isAbsolute(pattern) ? pattern : resolve(folder, pattern);
  if (!/[*?[]/.test(pattern)) return statSync(absolute, { throwIfNoEntry: false })?.isFile() ? [absolute] : [];
  const segments = absolute.split(sep);
  let current = [segments[0] === '' ? sep : segments[0]!];
  for (const segment of segments.slice(1)) {
    if (segment === '') continue;
    const next: string[] = [];
    for (const base of current) {
      if (!/[*?[]/.test(segment)) {
        next.push(join(base, segment));
        continue;
      }
      const matcher = segmentRegex(segment);
      let entries: string[];
      try {
        entries = readdirSync(base);
      } catch {
        continue;
      }
      for (const entry of entries.sort()) if (matcher.test(entry)) next.push(join(base, entry));
      if (next.length > MAX_MATCHES) throw new Error(`file ${pattern}: more than ${MAX_MATCHES} matches`);
    }
    current = next;
  }
  return current.filter((path) => statSync(path, { throwIfNoEntry: false })?.isFile());
}

function segmentRegex(segment: string): RegExp {
  let source = '';
  for (const ch of segment) {
    if (ch === '*') source += '[^/]*';
    else if (ch === '?') source += '[^/]';
    else source += ch.replace(/[.+^${}()|\\\]]/g, '\\$&').replace('[', '\\[');
  }
  return new RegExp(`^${source}$`);
}
