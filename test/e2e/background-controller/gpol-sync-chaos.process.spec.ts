/**
 * Chaos: a GeneratingPolicy with synchronize while the background controller's leader is killed
 * with SIGKILL in the middle of its work. Two replicas run as their own processes against the
 * in-memory API server; the leader is killed once it has generated part of the downstream, and
 * while no one leads a downstream object is deleted, another tampered with, a trigger stops
 * matching and two new triggers appear. The replica that takes over ends with exactly the expected
 * downstream objects: one per matching trigger, with the policy's data, none missing, none doubled,
 * none left for the trigger that stopped matching.
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
const here = join(__dirname, 'chaos');

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
  const child = spawn(process.execPath, ['-r', join(here, 'register-ts.cjs'), join(here, 'background-main.cjs')], {
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
            expression:
              'generator.Apply(variables.nsName, [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": dyn({"name": "chaos-cm"}), "data": dyn({"owner": variables.nsName})}])',
          },
        ],
      },
    } as unknown as JsonObject);
  }, 60_000);

  afterAll(async () => {
    for (const replica of replicas) replica.child.kill('SIGKILL');
    await Promise.all(replicas.map((replica) => replica.exited));
    await cluster?.stop();
  });

  it('the replica that takes over ends with exactly the expected downstream objects', async () => {
    replicas.push(startReplica(cluster, 'replica-a'), startReplica(cluster, 'replica-b'));
    await Promise.all(replicas.map((replica) => replica.started));

    // Kill the leader once it has generated part of the downstream, not all of it.
    await eventually(() => downstream().length >= 3, 'the leader generating', 60_000);
    const leader = replicas.find((replica) => replica.identity === leaseHolder());
    expect(leader, 'a replica holds the lease').toBeDefined();
    leader!.child.kill('SIGKILL');
    await leader!.exited;
    const survivor = replicas.find((replica) => replica !== leader)!;

    // While no one leads: a downstream object deleted, one tampered with, a trigger that stops
    // matching, and two new triggers.
    const present = downstream().map((object) => object.metadata.namespace as string);
    const [deletedIn, tamperedIn] = present;
    cluster.apiServer.delete('v1', 'ConfigMap', 'chaos-cm', deletedIn!);
    const tampered = cluster.apiServer.get('v1', 'ConfigMap', 'chaos-cm', tamperedIn!) as Obj;
    cluster.apiServer.update({ ...tampered, data: { owner: 'someone-else' } } as JsonObject);
    const stopped = `chaos-${TRIGGERS}`;
    const stoppedNamespace = cluster.apiServer.get('v1', 'Namespace', stopped) as Obj;
    cluster.apiServer.update({
      ...stoppedNamespace,
      metadata: { ...stoppedNamespace.metadata, labels: {} },
    } as JsonObject);
    namespace('chaos-new-1');
    namespace('chaos-new-2');

    const expected = [
      ...Array.from({ length: TRIGGERS - 1 }, (_, i) => `chaos-${i + 1}`),
      'chaos-new-1',
      'chaos-new-2',
    ].sort();
    const converged = () => {
      const objects = downstream();
      const namespaces = objects.map((object) => object.metadata.namespace as string).sort();
      return (
        JSON.stringify(namespaces) === JSON.stringify(expected) &&
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
