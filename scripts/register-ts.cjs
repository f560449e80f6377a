// The one TypeScript loader of the test-only child processes (`node -r <repo>/scripts/register-ts.cjs
// entry.cjs`): runs the repository's TypeScript sources as CommonJS (transpiled with @swc/core,
// decorators and their metadata kept for Nest), with tsconfig's `@edict/*` aliases, so that a spec can
// start a controller or a leader elector as its own process, and SIGKILL it, without a build step.
const Module = require('node:module');
const fs = require('node:fs');
const path = require('node:path');
const { transformSync } = require('@swc/core');

const root = path.resolve(__dirname, '..');
const aliases = JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.json'), 'utf8')).compilerOptions.paths ?? {};
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  const [target] = aliases[request] ?? [];
  return resolveFilename.call(this, target ? path.join(root, target) : request, parent, ...rest);
};
require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  });
  module._compile(code, filename);
};
