// A review worker started from the TypeScript sources (specs run the controller unbundled): compiles
// each .ts file with TypeScript's transpiler as it is required and resolves tsconfig's @edict/*
// aliases, then loads the entry named by workerData.entry. (Not SWC: a native addon loaded again in
// a new thread after another was terminated crashes the process.) A bundled controller starts its
// bundled review-worker.js instead.
/* eslint-disable @typescript-eslint/no-require-imports */
/* global __dirname */
const Module = require('node:module');
const { createHash } = require('node:crypto');
const { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { dirname, join, resolve } = require('node:path');
const { threadId, workerData } = require('node:worker_threads');

let root = __dirname;
while (!existsSync(join(root, 'tsconfig.json'))) root = dirname(root);
const aliases = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')).compilerOptions.paths;

/** The .ts file a specifier names (an alias, or a relative path without extension), if any. */
function typescriptFile(request, parent) {
  const alias = aliases[request];
  let base;
  if (alias) base = resolve(root, alias[0]);
  else if (request.startsWith('.') && parent && parent.filename) base = resolve(dirname(parent.filename), request);
  else return undefined;
  return [`${base}.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate));
}

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  return typescriptFile(request, parent) ?? resolveFilename.call(this, request, parent, ...rest);
};
// Transpiled files are kept by content hash: each worker of a spec would otherwise redo them all.
const cacheDir = join(tmpdir(), 'edict-typescript-worker');
mkdirSync(cacheDir, { recursive: true });

function transpile(source, filename) {
  const cached = join(cacheDir, `${createHash('sha256').update(filename).update(source).digest('hex')}.js`);
  if (existsSync(cached)) return readFileSync(cached, 'utf8');
  const ts = require('typescript');
  const { outputText } = ts.transpileModule(source, {
    fileName: filename,
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
      esModuleInterop: true,
    },
  });
  const partial = `${cached}.${process.pid}.${threadId}`;
  writeFileSync(partial, outputText);
  renameSync(partial, cached);
  return outputText;
}

Module._extensions['.ts'] = (module, filename) => {
  module._compile(transpile(readFileSync(filename, 'utf8'), filename), filename);
};
require(workerData.entry);
