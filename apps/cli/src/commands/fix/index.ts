/**
 * `edict fix policy|test`: Kyverno's `kyverno fix` (`cmd/cli/kubectl-kyverno/commands/fix`). It prints
 * what it would change in each file and, with `--save`, rewrites the file (as Kyverno writes it:
 * keys in order, server-set fields pruned). Kyverno marks the command experimental
 * (`KYVERNO_EXPERIMENTAL=true`); Edict always offers it.
 */
import { basename, dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Command } from 'commander';
import { errorMessage, isObject, type JsonObject } from '@edict/foundation';
import type { CommandIO } from '../io';
import { findNamed, findYaml, original, readYamlDocs, save, toYaml } from './files';
import { fixPolicy, isKyvernoPolicy, pruneForSave } from './fix-policy';
import { fixTest, fixUserInfo, fixValues, type Fixed } from './fix-test';

function fail(io: CommandIO, result: { code: number }, message: string): void {
  io.err(`Error: ${message}\n`);
  result.code = 1;
}

const ERRNO: Record<string, string> = {
  ENOENT: 'no such file or directory',
  ENOTDIR: 'not a directory',
  EACCES: 'permission denied',
};

/** A file system error as Go words it (`open <path>: no such file or directory`), else its message. */
function describeError(error: unknown): string {
  const { code, path } = error as NodeJS.ErrnoException;
  return code && path && ERRNO[code] ? `open ${path}: ${ERRNO[code]}` : errorMessage(error);
}

/** Prunes server-set metadata, and `metadata` itself when nothing is left (user info and values files). */
function pruneMetadata(file: JsonObject, dropEmpty: boolean): JsonObject {
  const out = structuredClone(file);
  if (isObject(out.metadata)) {
    for (const field of ['creationTimestamp', 'generation', 'uid']) delete out.metadata[field];
    if (dropEmpty && Object.keys(out.metadata).length === 0) delete out.metadata;
  }
  return out;
}

/** The file rewritten with its first document replaced (other documents kept after it). */
function withFirstDocument(path: string, first: JsonObject): string {
  const rest = readYamlDocs(path).slice(1).map(original);
  return [toYaml(first), ...rest].join('');
}

function loadFirstObject(path: string): JsonObject {
  const [doc] = readYamlDocs(path);
  if (!doc || !isObject(doc.value)) throw new Error(`${path} (document 1): expected an object`);
  return doc.value;
}

interface TestOptions {
  fileName: string;
  save: boolean;
  force: boolean;
  compress: boolean;
}

/** A side file of a test (user info, values): loaded, fixed, saved when asked. False when it could not be loaded. */
function fixSideFile(
  out: (line: string) => void,
  label: string,
  loadLabel: string,
  path: string,
  fix: (file: JsonObject) => Fixed,
  options: TestOptions,
): boolean {
  let file: JsonObject;
  try {
    file = loadFirstObject(path);
  } catch (error) {
    out(`    ERROR: failed to load ${loadLabel}: ${errorMessage(error)}`);
    return false;
  }
  const { fixed, messages } = fix(file);
  for (const message of messages) out(`  WARNING: ${message}`);
  if (options.save && (options.force || !isDeepStrictEqual(file, fixed))) {
    out(`  Saving ${label} file (${path})...`);
    try {
      save(path, withFirstDocument(path, pruneMetadata(fixed, true)));
      out('    OK');
    } catch (error) {
      out(`    ERROR: saving ${label} file (${path}): ${errorMessage(error)}`);
    }
  }
  return true;
}

function fixTests(dirs: readonly string[], options: TestOptions, io: CommandIO): void {
  const out = (line: string) => io.out(`${line}\n`);
  const paths = dirs.flatMap((dir) => findNamed(dir, options.fileName));
  for (const path of paths) {
    out(`Processing test file (${path})...`);
    let test: JsonObject;
    try {
      test = loadFirstObject(path);
    } catch (error) {
      out(`  ERROR: loading test file (${path}): ${errorMessage(error)}`);
      continue;
    }
    let named = test;
    const metadataName = isObject(test.metadata) ? test.metadata.name : undefined;
    if (!metadataName && !test.name) {
      out('  WARNING: name is not set');
      named = { ...test, metadata: { ...(isObject(test.metadata) ? test.metadata : {}), name: basename(path) } };
    }
    const { fixed, messages, error } = fixTest(named, options.compress);
    for (const message of messages) out(`  WARNING: ${message}`);
    if (error) {
      out(`  ERROR: ${error}`);
      continue;
    }
    if (options.save && (options.force || !isDeepStrictEqual(test, fixed))) {
      out(`  Saving test file (${path})...`);
      try {
        save(path, withFirstDocument(path, pruneMetadata(fixed, false)));
        out('    OK');
      } catch (failure) {
        out(`    ERROR: saving test file (${path}): ${errorMessage(failure)}`);
      }
    }
    const dir = dirname(path);
    if (typeof test.userinfo === 'string' && test.userinfo !== '') {
      out(`  Processing user info file (${test.userinfo})...`);
      const file = join(dir, test.userinfo);
      if (!fixSideFile(out, 'user info', 'user info', file, fixUserInfo, options)) continue;
    }
    if (typeof test.variables === 'string' && test.variables !== '') {
      out(`  Processing values file (${test.variables})...`);
      const file = join(dir, test.variables);
      if (!fixSideFile(out, 'values', 'values', file, fixValues, options)) continue;
    }
    out('');
  }
  out('Done.');
}

function fixPolicies(dirs: readonly string[], options: { save: boolean }, io: CommandIO): void {
  const out = (line: string) => io.out(`${line}\n`);
  for (const dir of dirs) {
    for (const path of findYaml(dir)) fixPolicyFile(path, options, out);
  }
  out('Done.');
}

/** As Kyverno does, a file that does not load, or holds no ClusterPolicy or Policy, is passed over in silence. */
function fixPolicyFile(path: string, options: { save: boolean }, out: (line: string) => void): void {
  let docs;
  try {
    docs = readYamlDocs(path);
  } catch {
    return;
  }
  if (!docs.some((doc) => isKyvernoPolicy(doc.value))) return;
  const fixedDocs = new Map<number, JsonObject>();
  for (const [index, doc] of docs.entries()) {
    if (!isKyvernoPolicy(doc.value)) continue;
    out(`Processing file (${path})...`);
    const { fixed, messages, error } = fixPolicy(doc.value);
    for (const message of messages) out(`  WARNING: ${message}`);
    if (error) {
      out(`  ERROR: ${error}`);
      return;
    }
    fixedDocs.set(index, fixed);
  }
  const changed = [...fixedDocs].some(([index, fixed]) => !isDeepStrictEqual(docs[index].value, fixed));
  if (!options.save || !changed) return;
  out(`  Saving file (${path})...`);
  const text = docs
    .map((doc, index) => {
      const fixed = fixedDocs.get(index);
      return fixed ? `---\n${toYaml(pruneForSave(fixed))}` : original(doc);
    })
    .join('');
  try {
    save(path, text);
    out('    OK');
  } catch (error) {
    out(`    ERROR: saving file (${path}): ${errorMessage(error)}`);
  }
}

export function registerFixCommand(program: Command, io: CommandIO, result: { code: number }): void {
  const fix = program
    .command('fix')
    .description(
      'Fix inconsistencies and deprecated usage of Kyverno resources.\n\n' +
        'The fix command provides a command-line interface to fix inconsistencies and deprecated usage of Kyverno resources.\n' +
        'It can be used to fix Kyverno test files.',
    )
    .addHelpText('after', '\nExample:\n  # Fix Kyverno test files\n  edict fix test . --save\n')
    .action(() => fix.outputHelp());

  fix
    .command('policy')
    .description('Fix inconsistencies and deprecated usage in Kyverno policy files.')
    .argument('[dir...]', 'folders (or files) of policies')
    .option('--save', 'Save fixed file', false)
    .addHelpText(
      'after',
      '\nExample:\n  # Fix Kyverno policy files\n  edict fix policy .\n\n  # Fix Kyverno policy files and save them back\n  edict fix policy . --save\n',
    )
    .action((dirs: string[], options: { save: boolean }) => {
      if (dirs.length === 0) return fail(io, result, 'requires at least 1 arg(s), only received 0');
      try {
        fixPolicies(dirs, options, io);
      } catch (error) {
        fail(io, result, describeError(error));
      }
    });

  fix
    .command('test')
    .description('Fix inconsistencies and deprecated usage in Kyverno test files.')
    .argument('[dir...]', 'folders of tests')
    .option('-f, --file-name <name>', 'Test filename', 'kyverno-test.yaml')
    .option('--save', 'Save fixed file', false)
    .option('--force', 'Force save file', false)
    .option('--compress', 'Compress test results', false)
    .addHelpText(
      'after',
      '\nExample:\n  # Fix Kyverno test files\n  edict fix test .\n\n  # Fix Kyverno test files and save them back\n  edict fix test . --save\n\n' +
        '  # Fix Kyverno test files with a specific file name\n  edict fix test . --file-name test.yaml --save\n',
    )
    .action((dirs: string[], options: TestOptions) => {
      if (dirs.length === 0) return fail(io, result, 'requires at least 1 arg(s), only received 0');
      if (options.fileName === '') return fail(io, result, 'file-name must not be set to an empty string');
      try {
        fixTests(dirs, options, io);
      } catch (error) {
        fail(io, result, describeError(error));
      }
    });
}
