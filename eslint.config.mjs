import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { layers } from './scripts/eslint/layer-rule.mjs';
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
  `${lib} is pure TypeScript: no Nest, no Node I/O, no Kubernetes client (see docs/architecture.md)`;
/** The pure libs: no Nest, no I/O, no Kubernetes client. Which libs each may import is the layer table's (scripts/eslint/layers.mjs). */
const PURE_LIBS = [
  'libs/foundation',
  'libs/cel',
  'libs/jmespath',
  'libs/native-policies',
  'libs/engine',
  'libs/cel-policies',
  'libs/image-verify',
];

/** no-restricted-imports for one pure lib (its specs and testing helpers may do I/O). */
function pureLib(lib) {
  const message = purity(lib);
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
            {
              group: ['@nestjs/*', '@kubernetes/client-node', '@kubernetes/client-node/*', '@opentelemetry/*'],
              message: `${message}; spans go through the Tracing port`,
            },
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
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        process: 'readonly',
        console: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
      },
    },
    // CommonJS files (a require hook for processes whose Nest sources do not load as ES modules) use require.
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.ts'],
    plugins: { edict: { rules: { 'lib-boundaries': libBoundaries, layers } } },
    rules: { 'edict/lib-boundaries': 'error', 'edict/layers': 'error' },
  },
  ...PURE_LIBS.map(pureLib),
);
