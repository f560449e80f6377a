// A review worker started from the TypeScript sources (specs run the controller unbundled): compiles
// each .ts file with SWC as it is required and resolves tsconfig's @edict/* aliases, then loads the
// entry named by workerData.entry. A bundled controller starts its bundled review-worker.js instead.
const Module = require('node:module');
const { existsSync, readFileSync } = require('node:fs');
const { dirname, join, resolve } = require('node:path');
const { workerData } = require('node:worker_threads');
const { transformSync } = require('@swc/core');

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
Module._extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    module: { type: 'commonjs' },
    jsc: {
      target: 'es2022',
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
    },
  });
  module._compile(code, filename);
};
require(workerData.entry);
