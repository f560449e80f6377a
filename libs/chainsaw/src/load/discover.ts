/** Finding test files: a folder holding `chainsaw-test.yaml` (or `.yml`) is a test. */
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const TEST_FILE_NAMES = ['chainsaw-test.yaml', 'chainsaw-test.yml'];

/** Test files below the paths (a path may also be a test file itself), sorted, without duplicates. */
export function discoverTestFiles(paths: readonly string[]): string[] {
  const found = new Set<string>();
  for (const path of paths) {
    const absolute = resolve(path);
    const stats = statSync(absolute, { throwIfNoEntry: false });
    if (!stats) throw new Error(`${path}: no such file or directory`);
    if (stats.isFile()) found.add(absolute);
    else walk(absolute, found);
  }
  return [...found].sort();
}

function walk(folder: string, found: Set<string>): void {
  const entries = readdirSync(folder, { withFileTypes: true });
  for (const entry of entries) {
    if (entry.isFile() && TEST_FILE_NAMES.includes(entry.name)) found.add(join(folder, entry.name));
  }
  for (const entry of entries) {
    if (entry.isDirectory()) walk(join(folder, entry.name), found);
  }
}
