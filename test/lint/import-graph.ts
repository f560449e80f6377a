// The import graph between the files of apps/ and libs/, and the cycles in it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative, resolve } from 'node:path';
import ts from 'typescript';

/** Repo-relative paths (with `/`) to source text. */
export type SourceFiles = ReadonlyMap<string, string>;
/** Each file to the files it imports, repo-relative. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

const ROOT = resolve(__dirname, '../..');

/** Every TypeScript file under the given top folders, read from disk. */
export function readSources(folders: readonly string[], root = ROOT): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(path);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        files.set(relative(root, path).split('\\').join('/'), readFileSync(path, 'utf8'));
      }
    }
  };
  for (const folder of folders) walk(join(root, folder));
  return files;
}

/** tsconfig's `paths`: `@edict/engine` -> `libs/engine/src`. */
export function aliasesOf(root = ROOT): Map<string, string> {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile).config as {
    compilerOptions: { paths: Record<string, string[]> };
  };
  return new Map(Object.entries(config.compilerOptions.paths).map(([alias, [target]]) => [alias, target!]));
}

/**
 * What a file's `import` and `export ... from` lines name, type-only ones included: two files that
 * need each other's types are as tangled as two that call each other. (A dynamic `import()` is not
 * counted: it is how code loads a module lazily.)
 */
export function specifiersOf(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  return source.statements.flatMap((statement) =>
    (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
    statement.moduleSpecifier !== undefined &&
    ts.isStringLiteral(statement.moduleSpecifier)
      ? [statement.moduleSpecifier.text]
      : [],
  );
}

/** The file an import names, if it is one of `files`: a relative path or an `@edict/...` alias. */
function resolveImport(
  from: string,
  specifier: string,
  files: SourceFiles,
  aliases: ReadonlyMap<string, string>,
): string | undefined {
  let base: string | undefined;
  if (specifier.startsWith('.')) base = posix.join(posix.dirname(from), specifier);
  else base = aliases.get(specifier);
  if (base === undefined) return undefined;
  return [`${base}.ts`, `${base}/index.ts`].find((candidate) => files.has(candidate));
}

export function importGraph(files: SourceFiles, aliases: ReadonlyMap<string, string> = aliasesOf()): ImportGraph {
  const graph = new Map<string, string[]>();
  for (const [path, text] of files) {
    const targets = specifiersOf(path, text)
      .map((specifier) => resolveImport(path, specifier, files, aliases))
      .filter((target): target is string => target !== undefined);
    graph.set(path, [...new Set(targets)]);
  }
  return graph;
}

/**
 * One cycle per strongly connected group of files (Tarjan), each as the files in import order from
 * its first file (alphabetically) back to it: `a.ts -> b.ts -> a.ts`.
 */
export function importCycles(graph: ImportGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== file);
      if (group.length > 1 || (graph.get(file) ?? []).includes(file)) groups.push(group);
    }
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return groups.map((group) => shortestCycle(graph, new Set(group))).sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The shortest way from the group's first file back to itself, staying inside the group. */
function shortestCycle(graph: ImportGraph, group: ReadonlySet<string>): string[] {
  const start = [...group].sort()[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const target of graph.get(file) ?? []) {
      if (!group.has(target)) continue;
      if (target === start) {
        const path = [start];
        for (let step: string | undefined = file; step !== start && step !== undefined; step = previous.get(step)) {
          path.splice(1, 0, step);
        }
        return file === start ? [start, start] : [...path, start];
      }
      if (!previous.has(target)) {
        previous.set(target, file);
        queue.push(target);
      }
    }
  }
  return [start, start];
}
