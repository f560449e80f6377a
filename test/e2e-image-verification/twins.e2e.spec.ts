/**
 * The local twins (test/e2e-image-verification) run as `npm run e2e-conformance` runs them, without
 * building the bundle: a registry for the run, the images pushed and signed, each folder of twins on
 * a fresh embedded cluster. `EDICT_TWINS=cosign,ivpol/mutate-digest` runs some of them,
 * `EDICT_TWINS_JOBS` (default 2) that many folders at once. Every twin
 * must pass: each stands for a test of Kyverno's suite that Edict cannot run offline.
 */
import { describe, expect, it } from 'vitest';
import { LOCAL_DIR, parseArgs } from '../e2e-conformance/args';
import { renderTable, scoreOf, type E2eTestRecord } from '../e2e-conformance/report';
import { runSuite } from '../e2e-conformance/run-suite';
import { startSuiteCluster } from '../e2e-conformance/suite-cluster';
import { prepareLocalRegistry } from './setup/prepare';

const selected = (process.env.EDICT_TWINS ?? '.').split(',').filter(Boolean);

describe('local twins of the suite tests that need a public registry', () => {
  it('pass against the run’s registry', { timeout: 3_600_000 }, async () => {
    const args = parseArgs(
      [...selected.map((path) => `${LOCAL_DIR}/${path}`), '--jobs', process.env.EDICT_TWINS_JOBS ?? '2'],
      process.env,
      process.cwd(),
    );
    const registry = await prepareLocalRegistry();
    let records: E2eTestRecord[];
    try {
      records = await runSuite(
        args,
        startSuiteCluster,
        (record) =>
          process.stderr.write(
            `${record.outcome.toUpperCase().padEnd(5)} ${record.path}` +
              (record.outcome === 'pass'
                ? '\n'
                : `: ${record.step ?? ''} ${record.operation ?? ''}\n  ${record.reason ?? ''}\n`),
          ),
        { paths: args.localPaths, values: registry.values, env: registry.clusterEnv },
      );
    } finally {
      await registry.stop();
    }
    process.stdout.write(`\n${renderTable(scoreOf(records), false)}\n`);
    const failing = records
      .filter((record) => record.outcome !== 'pass')
      .map((record) => `${record.path}: ${record.step ?? ''} ${record.operation ?? ''} ${record.reason ?? ''}`);
    expect(records.length).toBeGreaterThan(0);
    expect(failing).toEqual([]);
  });
});
