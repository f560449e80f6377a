/**
 * The replicas scenario's measure, kept up to date from the store's change events: which policies
 * each load Pod's PolicyReport names, and which Pods exist. Settle asks for it every 500 ms while
 * the reports controller is still writing; counting from scratch each time (thousands of reports)
 * took a tenth of the API server's CPU, slowing the very server it measures.
 */
import type { JsonObject } from '@edict/foundation';
import type { ChangeEvent, ObjectStore } from '@edict/apiserver';

export interface AuditTally {
  pods: number;
  /** The policies with a result in any Pod's report: every Pod (all alike) should have one of each. */
  expectedPolicies: number;
  /** Pods whose PolicyReport holds a result of every expected policy. */
  complete: number;
  /** Expected policy results absent from the reports. */
  missingResults: number;
  /** PolicyReport writes so far: while they go on, reports have not settled (a scan may rewrite complete ones). */
  reportWrites: number;
}

const POLICY_REPORTS = 'wgpolicyk8s.io/policyreports';
const PODS = '/pods';

export class AuditTallyIndex {
  /** PolicyReport name (the Pod's uid) → how many distinct policies its results name. */
  private readonly policiesPerReport = new Map<string, number>();
  /** Every policy any report named; a report's deletion does not make a policy unexpected. */
  private readonly expected = new Set<string>();
  private readonly podUids = new Set<string>();
  private reportWrites = 0;
  readonly stop: () => void;

  constructor(
    store: ObjectStore,
    private readonly namespace: string,
  ) {
    for (const report of store.list(POLICY_REPORTS, namespace)) this.reportChanged(report, false);
    for (const pod of store.list(PODS, namespace)) this.podUids.add(uidOf(pod));
    this.stop = store.subscribe((event) => this.observe(event));
  }

  tally(): AuditTally {
    let complete = 0;
    let missingResults = 0;
    for (const uid of this.podUids) {
      const missing = this.expected.size - (this.policiesPerReport.get(uid) ?? 0);
      missingResults += missing;
      if (missing === 0) complete++;
    }
    const { reportWrites } = this;
    return { pods: this.podUids.size, expectedPolicies: this.expected.size, complete, missingResults, reportWrites };
  }

  private observe(event: ChangeEvent): void {
    if (event.namespace !== this.namespace) return;
    const deleted = event.type === 'DELETED';
    if (event.groupResource === POLICY_REPORTS) {
      this.reportWrites++;
      this.reportChanged(event.object, deleted);
    } else if (event.groupResource === PODS && deleted) this.podUids.delete(uidOf(event.object));
    else if (event.groupResource === PODS) this.podUids.add(uidOf(event.object));
  }

  private reportChanged(report: JsonObject, deleted: boolean): void {
    const name = (report.metadata as JsonObject).name as string;
    if (deleted) {
      this.policiesPerReport.delete(name);
      return;
    }
    const policies = new Set(
      ((report.results as JsonObject[] | undefined) ?? []).map((result) => result.policy as string),
    );
    for (const policy of policies) this.expected.add(policy);
    this.policiesPerReport.set(name, policies.size);
  }
}

function uidOf(object: JsonObject): string {
  return (object.metadata as JsonObject).uid as string;
}
