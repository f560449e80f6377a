/**
 * Each controller's leader work, done once and timed: what the chaos scenarios check a controller
 * still does after a fault (a new leader, the API server back).
 *  - admission: its webhook monitor recreates a deleted ValidatingWebhookConfiguration;
 *  - background: a generate rule's UpdateRequest (from a Namespace create) makes its ConfigMap;
 *  - reports: a new Pod's admission results end in its PolicyReport;
 *  - cleanup: an object with a `cleanup.kyverno.io/ttl` label is deleted when it expires.
 */
import type { JsonObject } from '@edict/foundation';
import { DEFAULT_WEBHOOK_NAMES } from '@edict/webhook-config';
import { apiPost } from './api-post';
import type { ChaosCluster } from './chaos-cluster';
import { LOAD_NAMESPACE } from './cluster';
import type { ControllerKind } from './controller-process';
import { timeUntil } from './settle';

const GENERATE_PREFIX = 'chaos-generate-';
const WORK_TIMEOUT_MS = 60_000;

export const CONTROLLER_WORK: Record<ControllerKind, string> = {
  admission: 'deleted webhook configuration recreated',
  background: 'generate UpdateRequest completed',
  reports: "new Pod's PolicyReport written",
  cleanup: 'ttl-labelled ConfigMap deleted',
};

/** A generate rule whose UpdateRequests only the background leader completes. */
export const GENERATE_POLICY: JsonObject = {
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'chaos-generate' },
  spec: {
    rules: [
      {
        name: 'configmap',
        match: { any: [{ resources: { kinds: ['Namespace'], names: [`${GENERATE_PREFIX}*`] } }] },
        generate: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: 'generated',
          namespace: '{{request.object.metadata.name}}',
          synchronize: false,
          data: { data: { made: 'by the background leader' } },
        },
      },
    ],
  },
};

async function exists(cluster: ChaosCluster, apiVersion: string, kind: string, name: string, namespace?: string) {
  return cluster.api.call<boolean>('exists', { apiVersion, kind, name, namespace });
}

let generated = 0;

/** Does the work of `kind` once; resolves with the ms it took. */
export async function controllerWork(
  cluster: ChaosCluster,
  kind: ControllerKind,
  monitorIntervalMs: number,
): Promise<number> {
  switch (kind) {
    case 'admission':
      return cluster.api.call<number>('time-recreation', {
        kind: 'ValidatingWebhookConfiguration',
        name: DEFAULT_WEBHOOK_NAMES.resourceValidating,
        timeoutMs: 2 * monitorIntervalMs + 10_000,
      });
    case 'background': {
      const name = `${GENERATE_PREFIX}${generated++}`;
      const started = performance.now();
      await apiPost(cluster.url, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      await timeUntil(
        () => exists(cluster, 'v1', 'ConfigMap', 'generated', name),
        WORK_TIMEOUT_MS,
        'generated ConfigMap',
      );
      return performance.now() - started;
    }
    case 'reports': {
      const started = performance.now();
      const pod = await apiPost(cluster.url, `/api/v1/namespaces/${LOAD_NAMESPACE}/pods`, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { generateName: 'leader-', namespace: LOAD_NAMESPACE },
        spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
      });
      const uid = (pod.metadata as JsonObject).uid as string;
      await timeUntil(
        () => exists(cluster, 'wgpolicyk8s.io/v1alpha2', 'PolicyReport', uid, LOAD_NAMESPACE),
        WORK_TIMEOUT_MS,
        'PolicyReport',
      );
      return performance.now() - started;
    }
    case 'cleanup': {
      const name = `ttl-${generated++}`;
      const started = performance.now();
      await cluster.api.call('create', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: LOAD_NAMESPACE, labels: { 'cleanup.kyverno.io/ttl': '1s' } },
      });
      await timeUntil(
        async () => !(await exists(cluster, 'v1', 'ConfigMap', name, LOAD_NAMESPACE)),
        WORK_TIMEOUT_MS,
        'ttl deletion',
      );
      return performance.now() - started;
    }
  }
}
