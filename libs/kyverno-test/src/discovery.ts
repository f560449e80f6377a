import { readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

const TEST_FILE_NAMES = new Set(['kyverno-test.yaml', 'kyverno-test.yml']);

/**
 * Every Kyverno test file at or below the given paths, hidden folders (`.kyverno-test`) included
 * as Kyverno's test command walks them (the policies and folders a test names are then read by the
 * policy loader, which leaves hidden entries out), each listed once, in a stable order. A path that
 * is itself a test file is taken as is.
 */
export function discoverTestFiles(
  paths: readonly string[],
  fileNames: ReadonlySet<string> = TEST_FILE_NAMES,
): { files: string[]; missing: string[] } {
  const found = new Set<string>();
  const missing: string[] = [];
  for (const path of paths) {
    const absolute = resolve(path);
    let isDir: boolean;
    try {
      isDir = statSync(absolute).isDirectory();
    } catch {
      missing.push(path);
      continue;
    }
    if (!isDir) found.add(absolute);
    else walk(absolute, fileNames, found);
  }
  return { files: [...found].sort(), missing };
}

function walk(dir: string, fileNames: ReadonlySet<string>, found: Set<string>): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return; // unreadable folders hold no tests we can run
  }
  for (const entry of entries) {
    if (entry.name === 'node_modules' || entry.name === '.git') continue;
    const child = join(dir, entry.name);
    if (entry.isDirectory()) walk(child, fileNames, found);
    else if (entry.isFile() && fileNames.has(basename(child))) found.add(child);
  }
}
