import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isDirectory } from './files';

const INPUT_FILE = /\.(ya?ml|json)$/i;

/**
 * Whether a folder walk reads hidden files: Kyverno's policy loader leaves them out, its resource
 * loader reads the YAML files of a folder whatever their name. Hidden folders are never entered.
 */
export type HiddenFiles = 'skip' | 'read';

/**
 * Expands a path that may be a folder into the YAML/JSON files below it (sorted, for stable output).
 * As Kyverno's CLI does, the walk leaves out hidden folders (`.chainsaw-test/`, `.git/`), which hold
 * other tools' manifests (chainsaw steps, half policies that only assert a status), and hidden files
 * unless `hiddenFiles` is `read`. A path given explicitly is read even when its name is hidden:
 * Kyverno's loader also drops such a path, `.` included, which would make `apply .` load nothing.
 */
export function expandPath(path: string, hiddenFiles: HiddenFiles = 'skip'): string[] {
  if (!isDirectory(path)) return [path];
  const files: string[] = [];
  for (const entry of readdirSync(path, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const hidden = entry.name.startsWith('.');
    const child = join(path, entry.name);
    if (entry.isDirectory()) {
      if (!hidden) files.push(...expandPath(child, hiddenFiles));
    } else if (INPUT_FILE.test(entry.name) && (!hidden || hiddenFiles === 'read')) files.push(child);
  }
  return files;
}
