/**
 * Scenario 3: the API server unavailable (connections refused, watches cut) for a while, then back
 * with its data, as after a control-plane restart. During the outage every controller must stay up
 * and the admission replicas must keep answering reviews from their caches (sent straight to each
 * replica here: with the API server down, endpoints cannot change either). After it returns, each
 * controller's informers must recover: the recovery time is from the API server's return until
 * that controller's work is done again (controller-work.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../admission-suite';
import { httpsCall } from '../https-call';
import { ChaosCluster } from './chaos-cluster';
import { LOAD_NAMESPACE } from './cluster';
import { CONTROLLER_KINDS, type ControllerKind } from './controller-process';
import { CONTROLLER_WORK, controllerWork, GENERATE_POLICY } from './controller-work';
import { sleep } from './settle';

const REVIEW_INTERVAL_MS = 200;

export interface OutageSettings {
  outageMs: number;
  monitorIntervalMs: number;
}

export interface OutageRecovery {
  kind: ControllerKind;
  work: string;
  /** From the API server's return to the work done, ms (undefined: not within the bound). */
  recoveredMs?: number;
  problem?: string;
}

export interface OutageRun {
  outageMs: number;
  reviewsDuringOutage: number;
  /** Reviews not answered 200 with a response while the API server was down. */
  failedReviewsDuringOutage: number;
  firstReviewFailure?: string;
  /** Controller processes that exited during the outage. */
  exited: string[];
  recoveries: OutageRecovery[];
}

/** The bench's Pod CREATE review, in the load Namespace, with a fresh uid per call. */
function reviewFor(uid: string): string {
  const review = JSON.parse(readFileSync(join(FIXTURES, 'pod-create-review.json'), 'utf8'));
  review.request.uid = uid;
  review.request.namespace = LOAD_NAMESPACE;
  review.request.object.metadata.namespace = LOAD_NAMESPACE;
  return JSON.stringify(review);
}

export async function runApiOutage(settings: OutageSettings): Promise<OutageRun> {
  const cluster = await ChaosCluster.start([GENERATE_POLICY]);
  try {
    const monitor = { EDICT_WEBHOOK_MONITOR_INTERVAL_MS: String(settings.monitorIntervalMs) };
    await Promise.all([
      cluster.startReplica('admission', monitor),
      cluster.startReplica('admission', monitor),
      cluster.startReplica('background'),
      cluster.startReplica('reports', { EDICT_BACKGROUND_SCAN: 'false' }),
      cluster.startReplica('cleanup'),
    ]);
    await cluster.awaitWebhookConfiguration();
    // Every controller working before the outage (and the webhook configuration's CA known).
    for (const kind of CONTROLLER_KINDS) await controllerWork(cluster, kind, settings.monitorIntervalMs);
    const ca = await cluster.api.call<string>('ca-bundle');
    const replicas = [...cluster.replicas];

    const run: OutageRun = {
      outageMs: settings.outageMs,
      reviewsDuringOutage: 0,
      failedReviewsDuringOutage: 0,
      exited: [],
      recoveries: [],
    };
    await cluster.api.call('go-down');
    const downAt = performance.now();
    let sequence = 0;
    while (performance.now() - downAt < settings.outageMs) {
      await Promise.all(
        cluster.running('admission').map(async (replica) => {
          run.reviewsDuringOutage++;
          const answer = await httpsCall(replica.port, ca, '/validate/fail', reviewFor(`outage-${sequence++}`)).catch(
            (error: Error) => ({ status: 0, body: error.message }),
          );
          if (answer.status === 200 && answer.body.includes('"response"')) return;
          run.failedReviewsDuringOutage++;
          run.firstReviewFailure ??= `${replica.name}: ${answer.status} ${answer.body.slice(0, 200)}`;
        }),
      );
      await sleep(REVIEW_INTERVAL_MS);
    }
    await cluster.api.call('come-back');
    run.exited = replicas.filter((replica) => !replica.running).map((replica) => replica.name);

    // Each controller's recovery, measured from the return. The admission controller's comes first:
    // its check deletes the webhook configuration, which the others' creates need in place.
    const backAt = performance.now();
    const recover = async (kind: ControllerKind): Promise<OutageRecovery> => {
      try {
        await controllerWork(cluster, kind, settings.monitorIntervalMs);
        return { kind, work: CONTROLLER_WORK[kind], recoveredMs: performance.now() - backAt };
      } catch (error) {
        return { kind, work: CONTROLLER_WORK[kind], problem: (error as Error).message };
      }
    };
    const [admission, ...others] = CONTROLLER_KINDS;
    run.recoveries = [await recover(admission), ...(await Promise.all(others.map(recover)))];
    return run;
  } finally {
    await cluster.close();
  }
}
