/**
 * What the controller reports on /metrics about the reviews it handled: which policies ran and how
 * often, and its audit queue. Audit-only policies run after the answer (as in Kyverno), in a
 * bounded queue that drops work when full, so the bench reads these instead of assuming.
 */
import { httpsCall } from './https-call';

/** `kyverno_policy_results_total` → policies seen (with their validation mode) and counts by rule result. */
export function policyResults(metrics: string): { policies: Map<string, string>; results: Record<string, number> } {
  const policies = new Map<string, string>();
  const results: Record<string, number> = {};
  for (const line of metrics.split('\n')) {
    if (!line.startsWith('kyverno_policy_results_total{')) continue;
    const label = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(line)?.[1] ?? '?';
    const count = Number(line.slice(line.lastIndexOf(' ') + 1));
    policies.set(label('policy_name'), label('policy_validation_mode'));
    results[label('rule_result')] = (results[label('rule_result')] ?? 0) + count;
  }
  return { policies, results };
}

/** Sum of a metric's samples over all label sets (0 when absent). */
function metricTotal(metrics: string, name: string): number {
  let total = 0;
  for (const line of metrics.split('\n'))
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `))
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
  return total;
}

export interface ControllerTotals {
  reviews: number;
  ruleResults: number;
  /** Admitted reviews whose audit work was dropped, and those waiting for it. */
  auditDropped: number;
  auditDepth: number;
  /** Reviews that held their answer because the after-admission backlog was over its drain target. */
  backpressureHeld: number;
}

export class ControllerMetrics {
  constructor(
    private readonly port: number,
    private readonly ca: string,
  ) {}

  async text(): Promise<string> {
    const answer = await httpsCall(this.port, this.ca, '/metrics');
    if (answer.status !== 200) throw new Error(`/metrics answered ${answer.status}`);
    return answer.body;
  }

  async totals(): Promise<ControllerTotals> {
    const metrics = await this.text();
    return {
      reviews: metricTotal(metrics, 'kyverno_admission_requests_total'),
      ruleResults: metricTotal(metrics, 'kyverno_policy_results_total'),
      auditDropped: metricTotal(metrics, 'edict_audit_queue_dropped'),
      auditDepth: metricTotal(metrics, 'edict_audit_queue_depth'),
      backpressureHeld: metricTotal(metrics, 'edict_audit_backpressure_held_reviews'),
    };
  }

  /**
   * Waits until no audit work is queued and the rule results stopped moving (polled every 50 ms, so
   * the time waited can overstate the drain by about that); returns the time waited.
   */
  async settle(timeoutMs = 30_000): Promise<{ waitedMs: number; totals: ControllerTotals }> {
    const started = performance.now();
    let previous = await this.totals();
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const totals = await this.totals();
      const idle = totals.auditDepth === 0 && totals.ruleResults === previous.ruleResults;
      if (idle || performance.now() - started > timeoutMs) return { waitedMs: performance.now() - started, totals };
      previous = totals;
    }
  }
}
