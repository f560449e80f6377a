// The CLI runs without Nest: no file it can load (its sources, and the libs they reach through the
// tsconfig aliases, dynamic imports included) imports a @nestjs package. Specs are not followed.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../../..');
const paths: Record<string, string[]> = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')).compilerOptions
  .paths;

function resolveImport(specifier: string, from: string): string | undefined {
  const aliased = paths[specifier]?.[0];
  const base = aliased
    ? join(root, aliased)
    : specifier.startsWith('.')
      ? resolve(dirname(from), specifier)
      : undefined;
  if (!base) return undefined; // a package from node_modules
  for (const candidate of [`${base}.ts`, join(base, 'index.ts'), base]) {
    if (candidate.endsWith('.ts') && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Every `@nestjs/*` import reachable from `entry`, as `file -> package`. */
function nestImportsFrom(entry: string): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file) || file.endsWith('.spec.ts')) continue;
    seen.add(file);
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (fileName.startsWith('@nestjs/')) found.push(`${relative(root, file)} -> ${fileName}`);
      const next = resolveImport(fileName, file);
      if (next) queue.push(next);
    }
  }
  expect(seen.size).toBeGreaterThan(10); // the walk followed the CLI's imports
  return found;
}

describe('the CLI', () => {
  it('reaches no Nest package from its entry point', () => {
    expect(nestImportsFrom(join(root, 'apps/cli/src/main.ts'))).toEqual([]);
  });
});
