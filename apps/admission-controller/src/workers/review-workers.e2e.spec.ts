import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultAdmissionConfig, type AdmissionRequest, type FailurePolicy } from '@edict/admission';
import { Engine, type Policy } from '@edict/engine';
import { deadlineAfter, type KubeObject } from '@edict/foundation';
import { loadTestCase, loadTestFile } from '@edict/kyverno-test';
import { PolicyStore } from '@edict/policy';
import { resourceHash } from '@edict/reports';
import { decideReview, type ReviewInputs, type ReviewKind, type ReviewOutcome } from '../webhooks/review-decision';
import { ReviewWorkers, type WorkerScript } from './review-workers';
import { conformanceTestFiles } from './testing/conformance-tests';

const config = defaultAdmissionConfig({ controllerNamespace: 'edict' });
const PATHS: [ReviewKind, FailurePolicy][] = [
  ['validate', 'Fail'],
  ['validate', 'Ignore'],
  ['mutate', 'Fail'],
  ['mutate', 'Ignore'],
];

/** A policy cache of one store; reviews bring their snapshot, so no change notifications are needed. */
function cacheOf(store: PolicyStore) {
  return { snapshot: () => store.snapshot(), settings: () => store.settings(), onChange: () => () => undefined };
}

function inputsOf(
  store: PolicyStore,
  engine = new Engine({ exceptions: () => store.snapshot().exceptions }),
): ReviewInputs {
  return {
    snapshot: store.snapshot(),
    config,
    engine,
    namespaceLabels: { team: 'a' },
    deadline: deadlineAfter(10_000),
  };
}

let uid = 0;
function create(object: KubeObject, name = `r${++uid}`): AdmissionRequest {
  const [group, version] = object.apiVersion.includes('/') ? object.apiVersion.split('/') : ['', object.apiVersion];
  const namespace = object.metadata?.namespace ?? (object.kind === 'Namespace' ? undefined : 'default');
  return {
    uid: name,
    kind: { group: group!, version: version!, kind: object.kind },
    resource: { group: group!, version: version!, resource: `${object.kind.toLowerCase()}s` },
    name: object.metadata?.name,
    ...(namespace ? { namespace } : {}),
    operation: 'CREATE',
    userInfo: { username: 'alice', groups: ['system:authenticated'] },
    object: { ...object, metadata: { ...object.metadata, uid: `uid-${name}` } },
  };
}

/**
 * What an answer and its audits are made of, without the report timestamps; with the resource hash
 * the report carries (a worker's own, else the one the main thread computes from `object`).
 */
async function comparable(outcome: ReviewOutcome, object: AdmissionRequest['object']) {
  const after = await outcome.validation?.after?.();
  return {
    decision: outcome.decision,
    policies: outcome.policies.map((policy) => policy.key),
    responses: outcome.validation?.responses ?? outcome.mutation?.responses,
    audits: after?.auditResponses,
    reports: after?.reportResults.map(({ timestamp: _timestamp, ...result }) => result),
    updateRequests: outcome.validation?.updateRequests,
    reportHash: after?.reportResults.length ? (after.resourceHash ?? resourceHash(object ?? undefined)) : undefined,
  };
}

const sourceWorker = (entry: string): WorkerScript => ({
  path: join(__dirname, 'typescript-worker.js'),
  workerData: { entry: join(__dirname, entry) },
});

let pools: ReviewWorkers[] = [];
/** A validate review of the privileged Pod, failure policy Fail, due in 10 s. */
function reviewPrivilegedPod(workers: ReviewWorkers, store: PolicyStore, name?: string, engine?: Engine) {
  return workers.decide(
    'validate',
    'Fail',
    create(privilegedPod, name),
    inputsOf(store, engine),
    performance.now() + 10_000,
  );
}

async function pool(store: PolicyStore, size = 2, script?: WorkerScript): Promise<ReviewWorkers> {
  const workers = new ReviewWorkers(
    { size, recordPolicy: () => undefined, ...(script ? { script } : {}) },
    cacheOf(store),
  );
  workers.start();
  pools.push(workers);
  await expect.poll(() => workers.size, { timeout: 30_000 }).toBe(size);
  return workers;
}

afterEach(async () => {
  await Promise.all(pools.map((workers) => workers.close(5_000)));
  pools = [];
});

const DENY_PRIVILEGED: Policy = {
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'no-privileged', resourceVersion: '1' },
  spec: {
    validationFailureAction: 'Enforce',
    rules: [
      {
        name: 'privileged',
        match: { any: [{ resources: { kinds: ['Pod'] } }] },
        validate: {
          message: 'first message',
          pattern: { spec: { containers: [{ '=(securityContext)': { '=(privileged)': false } }] } },
        },
      },
    ],
  },
} as unknown as Policy;

const privilegedPod: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'shop' },
  spec: { containers: [{ name: 'c', image: 'nginx', securityContext: { privileged: true } }] },
};

describe('ReviewWorkers', () => {
  it('answers as the in-process path over the conformance corpus (policies swapped between tests)', async () => {
    const store = new PolicyStore({ exceptionNamespaces: ['*'] });
    const workers = await pool(store);
    // Every other test of the corpus: all its families, in bounded time.
    const tests = conformanceTestFiles().filter((_, index) => index % 2 === 0);
    expect(tests.length).toBeGreaterThan(0);
    let compared = 0;
    for (const file of tests) {
      const test = loadTestCase(loadTestFile(file));
      for (const policy of store.snapshot().policies.values()) store.removePolicy(policy.source!);
      for (const policy of test.policies) store.upsertPolicy(policy);
      for (const exception of test.exceptions) store.upsertException(exception);
      for (const resource of test.resources.slice(0, 4)) {
        const request = create(resource);
        for (const [kind, failurePolicy] of PATHS) {
          const inputs = inputsOf(store);
          const expected = await comparable(await decideReview(kind, failurePolicy, request, inputs), request.object);
          const actual = await comparable(
            await workers.decide(kind, failurePolicy, request, inputs, performance.now() + 10_000),
            request.object,
          );
          expect(actual, `${file} ${resource.kind}/${resource.metadata?.name} ${kind}/${failurePolicy}`).toEqual(
            expected,
          );
          compared += 1;
        }
      }
      for (const exception of test.exceptions) store.removeException(exception);
    }
    expect(workers.size).toBe(2);
    expect(compared).toBeGreaterThan(300);
    // Most reviews are the workers' own answers; those reading cluster context came back in-process.
    const counts = workers.counts();
    expect(counts.byWorkers + counts.inProcess).toBe(compared);
    expect(counts.byWorkers).toBeGreaterThan(compared * 0.8);
  }, 240_000);

  it('sends a policy change to the workers before the next review', async () => {
    const store = new PolicyStore();
    store.upsertPolicy(DENY_PRIVILEGED);
    const workers = await pool(store, 1);
    const first = await reviewPrivilegedPod(workers, store);
    expect(first.decision.allowed).toBe(false);
    expect(first.decision.message).toContain('first message');

    const changed = structuredClone(DENY_PRIVILEGED) as unknown as {
      metadata: { resourceVersion: string };
      spec: { rules: { validate: { message: string } }[] };
    };
    changed.metadata.resourceVersion = '2';
    changed.spec.rules[0]!.validate.message = 'second message';
    store.upsertPolicy(changed as unknown as Policy);
    const second = await reviewPrivilegedPod(workers, store);
    expect(second.decision.message).toContain('second message');

    store.removePolicy(DENY_PRIVILEGED);
    const third = await reviewPrivilegedPod(workers, store);
    expect(third.decision).toEqual({ allowed: true });
    expect(workers.counts()).toEqual({ byWorkers: 3, inProcess: 0 });
  }, 60_000);

  it('carries admission reports off to the workers: the audits run, no report results come back', async () => {
    const store = new PolicyStore();
    const audit = structuredClone(DENY_PRIVILEGED) as unknown as { spec: { validationFailureAction: string } };
    audit.spec.validationFailureAction = 'Audit';
    store.upsertPolicy(audit as unknown as Policy);
    const workers = await pool(store, 1);
    const after = async (admissionReports?: boolean) => {
      const inputs = { ...inputsOf(store), ...(admissionReports === undefined ? {} : { admissionReports }) };
      const outcome = await workers.decide(
        'validate',
        'Fail',
        create(privilegedPod),
        inputs,
        performance.now() + 10_000,
      );
      expect(outcome.decision.allowed).toBe(true);
      return outcome.validation!.after!();
    };
    const on = await after();
    expect(on.reportResults.map((result) => result.result)).toEqual(['fail']);
    const off = await after(false);
    expect(off.reportResults).toEqual([]);
    expect(off.auditResponses.map((response) => response.rules.map((rule) => rule.status))).toEqual([['fail']]);
    expect(workers.counts()).toEqual({ byWorkers: 2, inProcess: 0 });
  }, 60_000);

  it('decides from the body as the webhook received it, a byte order mark included', async () => {
    const store = new PolicyStore();
    store.upsertPolicy(DENY_PRIVILEGED);
    const workers = await pool(store, 1);
    const request = create(privilegedPod);
    const body = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request });
    const raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body)]);
    const outcome = await workers.decide('validate', 'Fail', request, inputsOf(store), performance.now() + 10_000, raw);
    expect(outcome.decision.allowed).toBe(false);
    expect(outcome.decision.message).toContain('first message');
    expect(workers.counts()).toEqual({ byWorkers: 1, inProcess: 0 });
  }, 60_000);

  it('evaluates in-process a review whose rules read cluster-backed context', async () => {
    const store = new PolicyStore();
    store.upsertPolicy({
      ...DENY_PRIVILEGED,
      spec: {
        validationFailureAction: 'Enforce',
        rules: [
          {
            name: 'from-configmap',
            match: { any: [{ resources: { kinds: ['Pod'] } }] },
            context: [{ name: 'settings', configMap: { name: 'settings', namespace: 'edict' } }],
            validate: { message: 'blocked by {{ settings.data.reason }}', deny: {} },
          },
        ],
      },
    } as unknown as Policy);
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings' },
      data: { reason: 'the ConfigMap' },
    };
    const engine = new Engine({
      loaders: {
        configMap: () => configMap,
        apiCall: () => undefined,
        globalReference: () => undefined,
        imageRegistry: () => undefined,
      },
    });
    const workers = await pool(store, 1);
    const outcome = await reviewPrivilegedPod(workers, store, undefined, engine);
    expect(outcome.decision.allowed).toBe(false);
    expect(outcome.decision.message).toContain('blocked by the ConfigMap');
    expect(workers.counts()).toEqual({ byWorkers: 0, inProcess: 1 });
  }, 60_000);

  it('fails the reviews of a crashed worker and replaces it', async () => {
    const store = new PolicyStore();
    store.upsertPolicy(DENY_PRIVILEGED);
    const workers = await pool(store, 1, sourceWorker('testing/misbehaving-worker.main.ts'));
    await expect(reviewPrivilegedPod(workers, store, 'crash')).rejects.toThrow(/review worker exited \(code 3\)/);
    // Meanwhile (no worker up) and after the replacement, reviews are answered.
    const answered = await reviewPrivilegedPod(workers, store);
    expect(answered.decision.allowed).toBe(false);
    await expect.poll(() => workers.size, { timeout: 20_000 }).toBe(1);
    const byReplacement = await reviewPrivilegedPod(workers, store);
    expect(byReplacement.decision.message).toContain('first message');
  }, 60_000);

  it('replaces a worker stuck past a review deadline', async () => {
    const store = new PolicyStore();
    const workers = await pool(store, 1, sourceWorker('testing/misbehaving-worker.main.ts'));
    const started = performance.now();
    await expect(
      workers.decide('validate', 'Fail', create(privilegedPod, 'hang'), inputsOf(store), performance.now() + 200),
    ).rejects.toThrow(/review worker exited/);
    expect(performance.now() - started).toBeLessThan(5_000);
    await expect.poll(() => workers.size, { timeout: 20_000 }).toBe(1);
  }, 60_000);

  it('finishes the reviews and audits in flight before stopping', async () => {
    const store = new PolicyStore();
    store.upsertPolicy({
      ...DENY_PRIVILEGED,
      spec: { ...(DENY_PRIVILEGED.spec as object), validationFailureAction: 'Audit' },
    } as unknown as Policy);
    const workers = await pool(store, 2);
    const reviews = Array.from({ length: 20 }, () => reviewPrivilegedPod(workers, store));
    const closed = workers.close(10_000);
    const outcomes = await Promise.all(reviews);
    const audits = await Promise.all(outcomes.map((outcome) => outcome.validation!.after!()));
    expect(await closed).toBe(true);
    expect(audits.every((after) => after.auditResponses[0]?.rules[0]?.status === 'fail')).toBe(true);
    expect(workers.size).toBe(0);
  }, 60_000);
});
