/**
 * Scenario `certs`: certificate expiry under load, with lifetimes compressed through the
 * controllers' own settings (CERT_SCENARIO_TIMING). Three admission replicas serve Pod creates
 * through the API server at a steady rate while the leader renews the serving certificate and then
 * the CA; the run records when each new certificate was written and when each replica served it,
 * the failed admissions, and whether every webhook configuration's caBundle held the CA of what was
 * served. Then every replica is killed, the run waits until the stored CA and leaf have both
 * expired, restarts three replicas and times a valid certificate served and the first admission.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { installNames } from '@edict/config';
import { apiPost } from './api-post';
import { ChaosCluster } from './chaos-cluster';
import { LOAD_NAMESPACE } from './cluster';
import { CertObserver } from './cert-observer';
import {
  CERT_SCENARIO_TIMING,
  certTimingEnvironment,
  rotationFigures,
  rotationsComplete,
  servingTally,
  timeToValid,
  type RotationFigure,
  type ServingTally,
} from './cert-rotations';
import type { LoadTally } from './fixed-rate-sender';
import { PodLoad } from './pod-load';
import { sleep } from './settle';

const REPLICAS = 3;
const LEASE = installNames().leases.admissionController;
/** After the restart: longest wait for a valid certificate and an admission. */
const RECOVERY_TIMEOUT_MS = 120_000;

export interface CertExpirySettings {
  createsPerSecond: number;
  /** The load stops once the rotations were all served, or after this long. */
  maxLoadMs: number;
}

export interface CertRestart {
  /** From the kill to the restart, ms. */
  downMs: number;
  /** How long before the restart the stored leaf and the newest CA had expired, ms. */
  leafExpiredMs: number;
  caExpiredMs: number;
  /** From the restart to the first TLS answer of a new replica (whatever it served). */
  firstAnsweredMs?: number;
  /** From the restart to a new replica holding the Lease (the only one that renews). */
  leaderMs?: number;
  /** From the restart to a valid certificate served by any new replica, and by all of them. */
  firstValidMs?: number;
  allValidMs?: number;
  /** From the restart to the first Pod create admitted through the API server. */
  firstAdmissionMs?: number;
  /** Pod creates that failed before it. */
  failedCreates: number;
  serving: ServingTally;
}

export interface CertExpiryRun {
  /** The serving certificates written while the first replicas ran. */
  rotations: RotationFigure[];
  /** Whether a leaf renewal and a move to a new CA were each served by every replica. */
  complete: boolean;
  load: LoadTally;
  /** Handshakes during the load. */
  serving: ServingTally;
  /** When the load started, ms since the run's start (load failure times count from it). */
  loadStartedAtMs: number;
  /** Lease holder changes during the load (a renewal waits while no replica leads). */
  leaderChanges: number;
  /** Times a first replica logged that it stopped leading (it may have led again at once). */
  leadershipLosses: number;
  restart: CertRestart;
}

export async function runCertExpiry(settings: CertExpirySettings): Promise<CertExpiryRun> {
  const cluster = await ChaosCluster.start();
  const observer = new CertObserver(cluster);
  try {
    await observer.start();
    const start = Date.now();
    const env = certTimingEnvironment(CERT_SCENARIO_TIMING);
    const first = await Promise.all(Array.from({ length: REPLICAS }, () => cluster.startReplica('admission', env)));
    const names = first.map((replica) => replica.name);
    await cluster.awaitWebhookConfiguration();

    const load = new PodLoad(cluster.url, settings.createsPerSecond);
    const loadStart = Date.now();
    await load.begin();
    const figures = (before = Infinity) =>
      rotationFigures(
        start,
        observer.leafWrites.filter((write) => write.at < before),
        observer.caWrites,
        observer.samples,
        names,
      );
    while (!rotationsComplete(figures()) && Date.now() - loadStart < settings.maxLoadMs) await sleep(1_000);
    const answered = await load.finish();
    const loadEnd = Date.now();

    await Promise.all(first.map((replica) => replica.kill()));
    const killedAt = Date.now();
    const leafNotAfter = observer.leafWrites.at(-1)?.notAfter ?? killedAt;
    const caNotAfter = observer.caWrites.at(-1)?.notAfter ?? killedAt;
    // Past both expiries (certificate times are whole seconds).
    await sleep(Math.max(leafNotAfter, caNotAfter) + 1_000 - Date.now());

    const restartAt = Date.now();
    const admission = firstAdmission(cluster.url, restartAt);
    const second = await Promise.all(Array.from({ length: REPLICAS }, () => cluster.startReplica('admission', env)));
    const secondNames = second.map((replica) => replica.name);
    const admitted = await admission;
    const recoveryDeadline = restartAt + RECOVERY_TIMEOUT_MS;
    while (timeToValid(observer.samples, restartAt, secondNames).all === undefined && Date.now() < recoveryDeadline)
      await sleep(250);
    const valid = timeToValid(observer.samples, restartAt, secondNames);
    const leases = (await cluster.leaseChanges()).filter((change) => change.lease === LEASE);
    const leader = leases.find((change) => change.at >= restartAt && secondNames.includes(change.holder));
    const answeredAt = observer.samples.find((sample) => sample.at >= restartAt && sample.serial !== undefined)?.at;

    return {
      rotations: figures(killedAt),
      complete: rotationsComplete(figures(killedAt)),
      load: answered,
      serving: servingTally(start, observer.samples, loadStart, loadEnd),
      loadStartedAtMs: loadStart - start,
      leaderChanges: leases.filter((change) => change.at >= loadStart && change.at < loadEnd).length,
      leadershipLosses: names
        .map((name) => readFileSync(join(cluster.logDir, `${name}.log`), 'utf8').split('stopped leading').length - 1)
        .reduce((sum, count) => sum + count, 0),
      restart: {
        downMs: restartAt - killedAt,
        leafExpiredMs: restartAt - leafNotAfter,
        caExpiredMs: restartAt - caNotAfter,
        ...(answeredAt !== undefined ? { firstAnsweredMs: answeredAt - restartAt } : {}),
        ...(leader ? { leaderMs: leader.at - restartAt } : {}),
        ...(valid.first !== undefined ? { firstValidMs: valid.first } : {}),
        ...(valid.all !== undefined ? { allValidMs: valid.all } : {}),
        ...(admitted.afterMs !== undefined ? { firstAdmissionMs: admitted.afterMs } : {}),
        failedCreates: admitted.failed,
        serving: servingTally(start, observer.samples, restartAt, Date.now()),
      },
    };
  } finally {
    observer.stop();
    await cluster.close();
  }
}

/** Creates a Pod every 250 ms until one is admitted (at most RECOVERY_TIMEOUT_MS); ms from `since`. */
async function firstAdmission(apiServerUrl: string, since: number): Promise<{ afterMs?: number; failed: number }> {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { generateName: 'after-restart-', namespace: LOAD_NAMESPACE },
    spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
  };
  let failed = 0;
  while (Date.now() - since < RECOVERY_TIMEOUT_MS) {
    try {
      await apiPost(apiServerUrl, `/api/v1/namespaces/${LOAD_NAMESPACE}/pods`, pod);
      return { afterMs: Date.now() - since, failed };
    } catch {
      failed++;
      await sleep(250);
    }
  }
  return { failed };
}
