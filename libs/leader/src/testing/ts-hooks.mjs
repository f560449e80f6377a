// Node module hooks for the test-only elector process: runs the lib's TypeScript sources directly
// (transpiled with @swc/core, already a dev dependency), so spawning a replica needs no build step.
import { transformSync } from '@swc/core';
import { readFile, stat } from 'node:fs/promises';
import { URL, fileURLToPath } from 'node:url';

async function isFile(url) {
  try {
    return (await stat(fileURLToPath(url))).isFile();
  } catch {
    return false;
  }
}

// The repository's path aliases (`@edict/<lib>` → `libs/<lib>/src`), as tsconfig.json declares them.
const repoRoot = new URL('../../../../', import.meta.url);
const aliases = JSON.parse(await readFile(new URL('tsconfig.json', repoRoot), 'utf8')).compilerOptions.paths ?? {};

export async function resolve(specifier, context, nextResolve) {
  const [target] = aliases[specifier] ?? [];
  if (target) {
    const url = new URL(`${target}/index.ts`, repoRoot).href;
    if (await isFile(url)) return { url, shortCircuit: true };
  }
  const relative = specifier.startsWith('./') || specifier.startsWith('../');
  if (relative && context.parentURL?.endsWith('.ts') && !/\.[cm]?[jt]s$/.test(specifier)) {
    for (const candidate of [`${specifier}.ts`, `${specifier}/index.ts`]) {
      const url = new URL(candidate, context.parentURL).href;
      if (await isFile(url)) return { url, shortCircuit: true };
    }
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (!url.endsWith('.ts')) return nextLoad(url, context);
  const source = await readFile(fileURLToPath(url), 'utf8');
  const { code } = transformSync(source, {
    filename: fileURLToPath(url),
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  });
  return { format: 'module', source: code, shortCircuit: true };
}
