/** The reports suite's printed report: how it was run, the figures, and the ratios. */
import { formatColumns } from './harness';
import type { ReportsSuite } from './reports-suite';

/** Kyverno's published resident memory per PolicyReport kept by its reports controller. */
const KYVERNO_BYTES_PER_REPORT = 6 * 1024;
/** Edict's goal (issue 12). */
const GOAL_BYTES_PER_REPORT = 3 * 1024;

const count = (value: number) => Math.round(value).toLocaleString('en-US');
const kib = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;

type MemoryField = 'rssBytes' | 'heapUsedBytes' | 'heapTotalBytes' | 'externalBytes';

const MEMORY_ROWS: [string, MemoryField][] = [
  ['resident (RSS)', 'rssBytes'],
  ['V8 heap used', 'heapUsedBytes'],
  ['V8 heap committed', 'heapTotalBytes'],
  ['external (Buffers...)', 'externalBytes'],
];

export function formatReportsSuite(suite: ReportsSuite): string {
  const { run } = suite;
  const reports = Math.max(1, run.reports);
  const growth = (field: MemoryField) => suite.memorySettled[field] - suite.memoryBefore[field];
  // What the controller keeps: the JavaScript memory still used once the scan is over. Resident
  // memory is printed too; V8 gives back committed pages over time, so it is read at both ends.
  const perReport = (growth('heapUsedBytes') + growth('externalBytes')) / reports;
  const peakRssPerReport = (suite.memoryAfter.rssBytes - suite.memoryBefore.rssBytes) / reports;
  const seconds = run.elapsedMs / 1000;
  const out = [
    `Reports controller, background scan: ${count(suite.pods)} Pods in ${suite.namespaces} Namespaces ` +
      `(one in ten privileged) × the ${suite.policies} Pod Security policies (Audit, background)`,
    `  the in-memory API server and the controller each in a child process; the controller booted as a follower, ` +
      `then the bench released its Lease. Clock on the API server: from the release to the last PolicyReport write. ` +
      `Memory: the controller's after two full collections, as an idle follower, right after the scan and after ` +
      `${suite.settleSeconds} s idle (settled); growth and per report from the idle follower to settled`,
    formatColumns([
      [
        'PolicyReports',
        'results/report',
        'failing',
        'seconds',
        'Pods/s',
        'controller CPU ms/Pod',
        'API server CPU ms/Pod',
      ],
      [
        count(run.reports),
        run.meanResults.toFixed(1),
        count(run.failing),
        seconds.toFixed(2),
        count(suite.pods / seconds),
        (suite.controllerCpuMs / suite.pods).toFixed(2),
        (suite.apiServerCpuMs / suite.pods).toFixed(2),
      ],
    ]),
    formatColumns([
      ['controller memory', 'idle follower', 'after the scan', 'settled', 'growth', 'per report kept'],
      ...MEMORY_ROWS.map(([name, field]) => [
        name,
        kib(suite.memoryBefore[field]),
        kib(suite.memoryAfter[field]),
        kib(suite.memorySettled[field]),
        kib(growth(field)),
        kib(growth(field) / reports),
      ]),
    ]),
    `A stored PolicyReport is ${kib(run.meanReportBytes)} of JSON on average.`,
    `Baseline: listing the same ${count(suite.pods)} Pods through the same client (${suite.listPage} per page, ` +
      `median of 5): ${(suite.listMs / 1000).toFixed(2)} s; scan / list ${(run.elapsedMs / suite.listMs).toFixed(1)}x`,
    `Memory kept per report (V8 heap used + external, settled): ${kib(perReport)}; Kyverno's published figure ` +
      `${kib(KYVERNO_BYTES_PER_REPORT)} (${(perReport / KYVERNO_BYTES_PER_REPORT).toFixed(2)}x), goal ` +
      `${kib(GOAL_BYTES_PER_REPORT)} (${perReport <= GOAL_BYTES_PER_REPORT ? 'met' : 'not met'}); resident memory ` +
      `right after the scan ${kib(peakRssPerReport)} per report above the idle follower, settled ` +
      `${kib(growth('rssBytes') / reports)}`,
  ];
  return `${out.join('\n')}\n`;
}
