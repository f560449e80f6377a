/** A reports controller for e2e specs against a TestCluster: short leases, watches and grace. */
import { type TestCluster, testControllerSettings } from '@edict/controller-runtime/testing';
import type { RunningHttpController } from '@edict/controller-runtime';
import { startReportsController } from '../bootstrap';
import { loadReportsConfig, type ReportsConfig } from '../config/reports-config';

export function startTestReports(
  cluster: TestCluster,
  overrides: Partial<ReportsConfig> = {},
): Promise<RunningHttpController> {
  const config = loadReportsConfig(
    {},
    { ...testControllerSettings(cluster), admissionReportGraceMs: 5_000, ...overrides },
  );
  return startReportsController(config, { logger: ['error'] });
}
