import swc from 'unplugin-swc';
import tsconfigPaths from 'vite-tsconfig-paths';
import { defineConfig } from 'vitest/config';

/** Every spec of the repo: specs sit beside the code they cover. */
const ALL_SPECS = ['apps/**/*.spec.ts', 'libs/**/*.spec.ts', 'test/**/*.spec.ts', 'bench/**/*.spec.ts'];

/**
 * The end-to-end project: specs that start clusters, controllers, processes, worker threads, helm or
 * kubectl, or run whole corpora. Everything else is the unit project, the inner loop
 * (`npm run test:unit`); `npm test` runs both. A new heavy spec is named `*.e2e.spec.ts`.
 */
const E2E_SPECS = [
  '**/*.e2e.spec.ts',
  // child processes (leader election across processes)
  '**/*.process.spec.ts',
  // the real kubectl against the in-memory API server
  '**/kubectl*.spec.ts',
  '**/*.kubectl.spec.ts',
  '**/printer-columns.spec.ts',
  '**/subresources.spec.ts',
  // review worker threads
  '**/review-workers.spec.ts',
  // helm and the rendered chart (generated files without helm stay unit specs)
  'test/chart/chart.spec.ts',
  'test/chart/chart-crds.spec.ts',
  'test/chart/image.spec.ts',
  // the corpora (../shared) through the engine and the CRDs; fuzz properties
  'test/chart/crd-corpus.spec.ts',
  'test/conformance/**/*.spec.ts',
  'test/fuzz/fuzz.spec.ts',
  'test/fuzz/isolation.spec.ts',
  'test/fuzz/pollution.spec.ts',
];

export default defineConfig({
  // SWC keeps decorator metadata, which esbuild drops and Nest's injector needs.
  plugins: [tsconfigPaths(), swc.vite({ module: { type: 'es6' } })],
  test: {
    environment: 'node',
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ALL_SPECS, exclude: ['**/node_modules/**', ...E2E_SPECS] } },
      { extends: true, test: { name: 'e2e', include: E2E_SPECS, exclude: ['**/node_modules/**'] } },
    ],
  },
});
