import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { libBoundaries } from './scripts/eslint/lib-boundaries.mjs';

/** Node modules that do I/O; the engine is pure (its callers load, fetch and serve). */
const NODE_IO = [
  'fs',
  'fs/promises',
  'net',
  'http',
  'https',
  'http2',
  'child_process',
  'dgram',
  'dns',
  'tls',
  'worker_threads',
  'cluster',
];
const purity = (lib) =>
  `${lib} is pure TypeScript: no Nest, no Node I/O, no Kubernetes client (see README, Architecture)`;
/** The pure libs, bottom up, and the libs of the repo each may import (foundation: none). */
const PURE_LIBS = [
  ['libs/foundation', []],
  ['libs/cel', ['@edict/foundation']],
  ['libs/jmespath', ['@edict/foundation']],
  ['libs/engine', null],
];

/** no-restricted-imports for one pure lib (its specs and testing helpers may do I/O). */
function pureLib([lib, allowedLibs]) {
  const message = purity(lib);
  const below =
    allowedLibs === null
      ? []
      : [
          {
            group: ['@edict/*', ...allowedLibs.flatMap((name) => [`!${name}`, `!${name}/testing`])],
            message: `${lib} sits below the other libs: it imports ${allowedLibs.length > 0 ? allowedLibs.join(', ') : 'no lib of the repo'}`,
          },
        ];
  return {
    files: [`${lib}/src/**/*.ts`],
    ignores: ['**/*.spec.ts', `${lib}/src/testing/**`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: NODE_IO.flatMap((name) => [name, `node:${name}`]).map((name) =>
            name.replace(/^node:/, '') === 'net'
              ? {
                  name,
                  allowImportNames: ['isIP', 'isIPv4', 'isIPv6'],
                  message: `${message}; only its address checks are allowed`,
                }
              : { name, message },
          ),
          patterns: [
            { group: ['@nestjs/*', '@kubernetes/client-node', '@kubernetes/client-node/*'], message },
            ...below,
          ],
        },
      ],
    },
  };
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Plain JavaScript entry points (scripts, hooks, build configs) run on Node.
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  { files: ['**/*.js'], languageOptions: { sourceType: 'commonjs' } },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.ts'],
    plugins: { edict: { rules: { 'lib-boundaries': libBoundaries } } },
    rules: { 'edict/lib-boundaries': 'error' },
  },
  ...PURE_LIBS.map(pureLib),
);
