/** A reports controller for e2e specs against an E2eCluster: short leases, watches and grace. */
import type { E2eCluster } from '@edict/admission-controller/testing';
import type { RunningHttpController } from '@edict/controller';
import { startReportsController } from '../bootstrap';
import { loadReportsConfig, type ReportsConfig } from '../config/reports-config';

export function startTestReports(
  cluster: E2eCluster,
  overrides: Partial<ReportsConfig> = {},
): Promise<RunningHttpController> {
  const config = loadReportsConfig(
    {},
    {
      kubeSource: 'kubeconfig',
      kubeconfig: cluster.kubeconfig,
      installName: cluster.names.installName,
      host: '127.0.0.1',
      port: 0,
      watchTimeoutSeconds: 5,
      leaseDurationMs: 2_000,
      renewDeadlineMs: 1_500,
      retryPeriodMs: 200,
      admissionReportGraceMs: 5_000,
      ...overrides,
    },
  );
  return startReportsController(config, { logger: ['error'] });
}
