/**
 * globalReference context entries in the background controller, end to end through the in-memory
 * API server: a GlobalContextEntry lists the ConfigMaps of a namespace; one ClusterPolicy reads it
 * in an admission mutate rule (the admission controller's store) and in a generate rule (the
 * background controller's own store, as Kyverno's background controller runs its global context
 * controller). Both give the same team list, and both follow a change of the entry's resources.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GlobalContextEntries } from '@edict/context';
import type { JsonObject } from '@edict/foundation';
import { eventually } from '@edict/kube/testing';
import { startE2eCluster, type E2eCluster } from '@edict/admission-controller/testing';
import type { RunningHttpController } from '@edict/controller-runtime';
import { startTestBackground } from '@edict/background-controller/testing';
import { clusterPolicy, waitForWebhook } from '@edict/controller-runtime/testing';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const TEAMS = { name: 'teams', globalReference: { name: 'team-list.names' } };
const TEAM_LIST = "{{ join(',', sort(teams)) }}";
const directoryNamespaces = { any: [{ resources: { kinds: ['Namespace'], names: ['directory-*'] } }] };

/** Whether a controller's store has the entry's data loaded (its informer synced). */
function loaded(app: RunningHttpController['app'], reference: string): boolean {
  try {
    app.get(GlobalContextEntries).store.read(reference);
    return true;
  } catch {
    return false;
  }
}

describe('globalReference entries in background generate rules', () => {
  let cluster: E2eCluster;
  let admission: RunningHttpController;
  let background: RunningHttpController;
  const get = (apiVersion: string, kind: string, name: string, namespace?: string) =>
    cluster.apiServer.get(apiVersion, kind, name, namespace) as Obj | undefined;
  const create = (object: Obj) => cluster.apiServer.create(object as JsonObject);

  beforeAll(async () => {
    cluster = await startE2eCluster();
    admission = await cluster.startReplica();
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate-policy.edict.svc');
    background = await startTestBackground(cluster);
    create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'teams' } });
    for (const team of ['web', 'db']) {
      create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: team, namespace: 'teams' } });
    }
    await cluster.custom.createClusterCustomObject({
      group: 'kyverno.io',
      version: 'v2alpha1',
      plural: 'globalcontextentries',
      body: {
        apiVersion: 'kyverno.io/v2alpha1',
        kind: 'GlobalContextEntry',
        metadata: { name: 'team-list' },
        spec: {
          kubernetesResource: { group: '', version: 'v1', resource: 'configmaps', namespace: 'teams' },
          projections: [{ name: 'names', jmesPath: '[].metadata.name' }],
        },
      },
    });
    // Each controller's store lists the entry's resource on its own schedule.
    await eventually(() => loaded(admission.app, 'team-list.names'), "the admission controller's entry", 15_000);
    await eventually(() => loaded(background.app, 'team-list.names'), "the background controller's entry", 15_000);
    await cluster.createClusterPolicy(
      clusterPolicy('team-directory', {
        rules: [
          {
            name: 'annotate-teams',
            match: directoryNamespaces,
            context: [TEAMS],
            mutate: { patchStrategicMerge: { metadata: { annotations: { teams: TEAM_LIST } } } },
          },
          {
            name: 'publish-teams',
            match: directoryNamespaces,
            context: [TEAMS],
            generate: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              name: 'teams',
              namespace: '{{request.object.metadata.name}}',
              data: { data: { teams: TEAM_LIST } },
            },
          },
        ],
      }),
    );
    await waitForWebhook(cluster.apiServer, 'MutatingWebhookConfiguration', 'mutate.edict.svc-fail', 'namespaces');
    await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'namespaces');
  }, 60_000);

  afterAll(async () => {
    await background?.stop().catch(() => undefined);
    await cluster?.stop();
  });

  /** Creates the Namespace; answers what admission wrote on it and what the background controller generated in it. */
  async function directory(name: string): Promise<{ admission: string; background: string }> {
    await cluster.core.createNamespace({ body: { metadata: { name } } });
    await eventually(() => get('v1', 'ConfigMap', 'teams', name) !== undefined, `the ConfigMap in ${name}`, 15_000);
    return {
      admission: get('v1', 'Namespace', name)!.metadata.annotations?.teams,
      background: get('v1', 'ConfigMap', 'teams', name)!.data?.teams,
    };
  }

  it("generates from the background controller's store what admission read from its own", async () => {
    expect(await directory('directory-a')).toEqual({ admission: 'db,web', background: 'db,web' });
  }, 30_000);

  it('follows a change of the listed resources in both controllers', async () => {
    create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ops', namespace: 'teams' } });
    const seesOps = (app: RunningHttpController['app']) =>
      (app.get(GlobalContextEntries).store.read('team-list.names') as string[]).includes('ops');
    await eventually(() => seesOps(admission.app) && seesOps(background.app), 'both stores list ops', 15_000);
    expect(await directory('directory-b')).toEqual({ admission: 'db,ops,web', background: 'db,ops,web' });
  }, 30_000);
});
