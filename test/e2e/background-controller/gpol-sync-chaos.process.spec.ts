/**
 * Chaos: a GeneratingPolicy with synchronize while the background controller's leader is killed
 * with SIGKILL in the middle of its work. Its triggers' downstream (two ConfigMaps each) was
 * generated before; two replicas run as their own processes against the in-memory API server; the
 * leader is killed once it leads, and while no one leads one downstream object is deleted, others
 * tampered with, a trigger stops matching, another is deleted (its downstream left behind). The
 * replica that takes over ends with exactly the expected downstream objects: two per matching
 * trigger, with the policy's data, none missing, none doubled, none left for the triggers that
 * went.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { eventually } from '@edict/kube/testing';
import { startTestCluster, testControllerSettings, type TestCluster } from '@edict/controller-runtime/testing';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const POLICY = 'chaos-sync';
const TRIGGERS = 24;
const NAMES = ['chaos-cm', 'chaos-extra'];
const here = join(__dirname, 'chaos');
/** The repository's TypeScript loader for child processes. */
const REGISTER_TS = join(__dirname, '../../../scripts/register-ts.cjs');

interface Replica {
  readonly identity: string;
  readonly child: ChildProcess;
  readonly started: Promise<void>;
  readonly exited: Promise<void>;
  output(): string;
}

function startReplica(cluster: TestCluster, identity: string): Replica {
  const overrides = {
    ...testControllerSettings(cluster),
    leaseIdentity: identity,
    retryDelayMs: 100,
  };
  const child = spawn(process.execPath, ['-r', REGISTER_TS, join(here, 'background-main.cjs')], {
    cwd: here,
    env: { ...process.env, BACKGROUND_OVERRIDES: JSON.stringify(overrides) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-20_000));
  child.stderr!.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      collect(chunk);
      if (output.includes('started')) resolve();
    });
    void exited.then(() => reject(new Error(`replica ${identity} exited before starting:\n${output}`)));
  });
  started.catch(() => undefined);
  return { identity, child, started, exited, output: () => output };
}

/** The labels a generation of the policy stamps on what it generates for `trigger`. */
function downstreamLabels(trigger: Obj): Record<string, string> {
  return {
    'app.kubernetes.io/managed-by': 'kyverno',
    'generate.kyverno.io/policy-name': POLICY,
    'generate.kyverno.io/trigger-name': trigger.metadata.name,
    'generate.kyverno.io/trigger-namespace': '',
    'generate.kyverno.io/trigger-uid': trigger.metadata.uid,
    'generate.kyverno.io/trigger-kind': 'Namespace',
    'generate.kyverno.io/trigger-group': '',
    'generate.kyverno.io/trigger-version': 'v1',
  };
}

describe('GeneratingPolicy synchronize under a background-controller leader SIGKILL', () => {
  let cluster: TestCluster;
  const replicas: Replica[] = [];
  const namespace = (name: string, labels: Record<string, string> = { chaos: 'true' }) =>
    cluster.apiServer.create({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, labels },
    } as unknown as JsonObject);
  const downstream = () =>
    (cluster.apiServer.list('v1', 'ConfigMap') as Obj[]).filter(
      (object) => object.metadata?.labels?.['generate.kyverno.io/policy-name'] === POLICY,
    );
  const leaseHolder = () => {
    const leases = cluster.apiServer.list('coordination.k8s.io/v1', 'Lease', cluster.names.namespace) as Obj[];
    const identities = new Set(replicas.map((replica) => replica.identity));
    return leases.map((lease) => lease.spec?.holderIdentity as string).find((holder) => identities.has(holder));
  };

  beforeAll(async () => {
    cluster = await startTestCluster();
    for (let i = 1; i <= TRIGGERS; i++) namespace(`chaos-${i}`);
    cluster.apiServer.create({
      apiVersion: 'policies.kyverno.io/v1',
      kind: 'GeneratingPolicy',
      metadata: { name: POLICY },
      spec: {
        evaluation: { synchronize: { enabled: true } },
        matchConstraints: {
          objectSelector: { matchLabels: { chaos: 'true' } },
          resourceRules: [
            { apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces'], operations: ['CREATE', 'UPDATE'] },
          ],
        },
        variables: [{ name: 'nsName', expression: 'object.metadata.name' }],
        generate: [
          {
            expression: `generator.Apply(variables.nsName, [${NAMES.map(
              (name) =>
                `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": dyn({"name": "${name}"}), "data": dyn({"owner": variables.nsName})}`,
            ).join(', ')}])`,
          },
        ],
      },
    } as unknown as JsonObject);
    // What the policy's UpdateRequests generated before the replicas start.
    for (let i = 1; i <= TRIGGERS; i++) {
      const trigger = cluster.apiServer.get('v1', 'Namespace', `chaos-${i}`) as Obj;
      for (const name of NAMES) {
        cluster.apiServer.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, namespace: `chaos-${i}`, labels: downstreamLabels(trigger) },
          data: { owner: `chaos-${i}` },
        } as unknown as JsonObject);
      }
    }
  }, 60_000);

  afterAll(async () => {
    for (const replica of replicas) replica.child.kill('SIGKILL');
    await Promise.all(replicas.map((replica) => replica.exited));
    await cluster?.stop();
  });

  it('the replica that takes over ends with exactly the expected downstream objects', async () => {
    replicas.push(startReplica(cluster, 'replica-a'), startReplica(cluster, 'replica-b'));
    await Promise.all(replicas.map((replica) => replica.started));

    // Kill the leader as soon as it leads (in the middle of its first pass, or just after it).
    await eventually(() => leaseHolder() !== undefined, 'a replica leading', 60_000);
    const leader = replicas.find((replica) => replica.identity === leaseHolder())!;
    leader.child.kill('SIGKILL');
    await leader.exited;
    const survivor = replicas.find((replica) => replica !== leader)!;

    // While no one leads: a downstream object deleted, two tampered with, a trigger that stops
    // matching, and a trigger deleted whose downstream stays behind.
    cluster.apiServer.delete('v1', 'ConfigMap', 'chaos-cm', 'chaos-1');
    for (const [name, namespace] of [
      ['chaos-cm', 'chaos-2'],
      ['chaos-extra', 'chaos-3'],
    ] as const) {
      const tampered = cluster.apiServer.get('v1', 'ConfigMap', name, namespace) as Obj;
      cluster.apiServer.update({ ...tampered, data: { owner: 'someone-else' } } as JsonObject);
    }
    const stopped = `chaos-${TRIGGERS}`;
    const stoppedNamespace = cluster.apiServer.get('v1', 'Namespace', stopped) as Obj;
    cluster.apiServer.update({
      ...stoppedNamespace,
      metadata: { ...stoppedNamespace.metadata, labels: {} },
    } as JsonObject);
    const goneTrigger = { metadata: { name: 'chaos-gone', uid: 'deleted-while-no-one-led' } };
    cluster.apiServer.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'chaos-orphan', namespace: 'chaos-5', labels: downstreamLabels(goneTrigger) },
      data: { owner: 'chaos-gone' },
    } as unknown as JsonObject);

    const expected = Array.from({ length: TRIGGERS - 1 }, (_, i) => NAMES.map((name) => `chaos-${i + 1}/${name}`))
      .flat()
      .sort();
    const converged = () => {
      const objects = downstream();
      const found = objects.map((object) => `${object.metadata.namespace}/${object.metadata.name}`).sort();
      return (
        JSON.stringify(found) === JSON.stringify(expected) &&
        objects.every((object) => object.data?.owner === object.metadata.namespace)
      );
    };
    await eventually(() => leaseHolder() === survivor.identity, 'the surviving replica leading', 30_000);
    await eventually(converged, `exactly one ConfigMap per matching trigger\n${survivor.output()}`, 90_000);

    // Settled: the same objects a while later, each with the labels of its own trigger.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(converged()).toBe(true);
    for (const object of downstream()) {
      const trigger = cluster.apiServer.get('v1', 'Namespace', object.metadata.namespace) as Obj;
      expect(object.metadata.labels['generate.kyverno.io/trigger-uid']).toBe(trigger.metadata.uid);
    }
  }, 240_000);
});
