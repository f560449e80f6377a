import swc from 'unplugin-swc';
import tsconfigPaths from 'vite-tsconfig-paths';
import { defineConfig } from 'vitest/config';

/** Every spec of the repo: specs sit beside the code they cover. */
const ALL_SPECS = ['apps/**/*.spec.ts', 'libs/**/*.spec.ts', 'test/**/*.spec.ts', 'bench/**/*.spec.ts'];

/**
 * The end-to-end project: specs that start clusters, controllers, worker threads, helm or kubectl, or
 * run whole corpora (`*.e2e.spec.ts`), and those that start child processes (`*.process.spec.ts`).
 * Everything else is the unit project, the inner loop (`npm run test:unit`); `npm test` runs both.
 */
const E2E_SPECS = ['**/*.e2e.spec.ts', '**/*.process.spec.ts'];

export default defineConfig({
  // SWC keeps decorator metadata, which esbuild drops and Nest's injector needs.
  plugins: [tsconfigPaths(), swc.vite({ module: { type: 'es6' } })],
  test: {
    environment: 'node',
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        // Unit specs share each worker's module registry: loading the libs once per worker instead of
        // once per file. A spec that mocks a module reloads what it mocks (vi.resetModules).
        test: { name: 'unit', include: ALL_SPECS, exclude: ['**/node_modules/**', ...E2E_SPECS], isolate: false },
      },
      // Clusters, processes and child controllers on 2 shared cores: a test that fails once is run again,
      // and the run names it (FLAKY, scripts/vitest-flaky-reporter.mjs) so it is fixed, not forgotten.
      { extends: true, test: { name: 'e2e', include: E2E_SPECS, exclude: ['**/node_modules/**'], retry: 1 } },
    ],
  },
});
