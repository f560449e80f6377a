/**
 * The chaos runs' cluster, in a child process of its own: the in-memory API server with Edict's CRDs,
 * the 17 Pod Security policies (Audit) and the webhook Service pointing at the parent's balancer.
 * It records every Lease holder change as it happens, and answers the parent's questions about
 * its store (reports per Pod, webhook configurations) from the inside, where no client lags.
 */
import { InMemoryApiServer } from '@edict/apiserver';
import { runControllerManager } from '@edict/controller-manager';
import type { JsonObject } from '@edict/foundation';
import { readCrdManifests } from '@edict/policy';
import { DEFAULT_WEBHOOK_NAMES } from '@edict/webhook-config';
import type { ChildRoleRunner } from '../child-process';
import { pssPolicyObjects } from '../webhook-servers';
import { AuditTallyIndex } from './audit-tally';

export const CHAOS_NAMESPACE = 'edict';
export const CHAOS_SERVICE = 'edict-svc';
/** Where the load's Pods go. */
export const LOAD_NAMESPACE = 'load';

export interface ClusterInput {
  /** The port of the balancer standing in for the webhook Service. */
  balancerPort: number;
  /** Objects to create after the policies (a scenario's own policies). */
  extraObjects: JsonObject[];
}

export interface ClusterReport {
  url: string;
  policies: string[];
}

export interface LeaseChange {
  /** Wall-clock time (ms since the epoch) the API server stored the change. */
  at: number;
  lease: string;
  /** Empty when released. */
  holder: string;
}

/** The Namespaces named `<prefix>*` and which of them lack the object a generate rule puts in each. */
export interface GeneratedCoverage {
  namespaces: number;
  /** The Namespaces without it (at most 20 named). */
  missing: string[];
  missingCount: number;
}

const LEASES = 'coordination.k8s.io/leases';

function generatedCoverage(
  server: InMemoryApiServer,
  query: { prefix: string; apiVersion: string; kind: string; name: string },
): GeneratedCoverage {
  const names = server
    .list('v1', 'Namespace')
    .map((namespace) => (namespace.metadata as JsonObject).name as string)
    .filter((name) => name.startsWith(query.prefix));
  const missing = names.filter((name) => server.get(query.apiVersion, query.kind, query.name, name) === undefined);
  return { namespaces: names.length, missing: missing.slice(0, 20), missingCount: missing.length };
}

/** A Pod the review load reviews: stored at once, without admission, as `load-<round>-<n>` labelled with its round. */
function loadPod(round: string, index: number): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `load-${round}-${index}`, namespace: LOAD_NAMESPACE, labels: { app: 'chaos', round } },
    spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
  };
}

/** Deletes a webhook configuration and resolves with the ms until it exists again (or rejects at `timeoutMs`). */
function timeRecreation(
  server: InMemoryApiServer,
  input: { kind: string; name: string; timeoutMs: number },
): Promise<number> {
  const api = 'admissionregistration.k8s.io/v1';
  if (!server.get(api, input.kind, input.name)) return Promise.reject(new Error(`no ${input.kind} ${input.name}`));
  server.delete(api, input.kind, input.name);
  const deletedAt = performance.now();
  return new Promise((resolve, reject) => {
    const poll = setInterval(() => {
      const elapsed = performance.now() - deletedAt;
      if (server.get(api, input.kind, input.name)) resolve(elapsed);
      else if (elapsed > input.timeoutMs) reject(new Error(`${input.kind} ${input.name} not back after ${elapsed} ms`));
      else return;
      clearInterval(poll);
    }, 50);
  });
}

export const cluster: ChildRoleRunner = {
  async start(input) {
    const { balancerPort, extraObjects } = input as ClusterInput;
    const server = new InMemoryApiServer({
      serviceEndpoints: { [`${CHAOS_NAMESPACE}/${CHAOS_SERVICE}`]: `https://127.0.0.1:${balancerPort}` },
    });
    // The garbage collector runs next to the API server, as in a cluster (it lives as long as the store).
    runControllerManager(server);
    const { url, port } = await server.start({ host: '127.0.0.1', port: 0 });
    for (const crd of readCrdManifests()) server.create(crd);
    for (const name of [CHAOS_NAMESPACE, LOAD_NAMESPACE])
      server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    const policies = pssPolicyObjects().map((policy) => (server.create(policy).metadata as JsonObject).name as string);
    for (const object of extraObjects) server.create(object);

    const leaseChanges: LeaseChange[] = [];
    const holders = new Map<string, string>();
    server.store.subscribe((event) => {
      if (event.groupResource !== LEASES) return;
      const lease = (event.object.metadata as JsonObject).name as string;
      const holder =
        event.type === 'DELETED' ? '' : (((event.object.spec as JsonObject)?.holderIdentity as string) ?? '');
      if (holders.get(lease) === holder) return;
      holders.set(lease, holder);
      leaseChanges.push({ at: Date.now(), lease, holder });
    });

    const audits = new AuditTallyIndex(server.store, LOAD_NAMESPACE);
    const report: ClusterReport = { url, policies };
    return {
      report,
      stop: () => {
        audits.stop();
        return server.stop();
      },
      commands: {
        'audit-tally': async () => audits.tally(),
        'lease-changes': async () => leaseChanges,
        'time-recreation': (command) =>
          timeRecreation(server, command as { kind: string; name: string; timeoutMs: number }),
        create: async (object) => server.create(object as JsonObject),
        'generated-coverage': async (command) =>
          generatedCoverage(server, command as { prefix: string; apiVersion: string; kind: string; name: string }),
        // The review load's Pods: stored directly (no admission), and those it did not admit removed after.
        'store-pods': async (command) => {
          const { round, count } = command as { round: string; count: number };
          for (let index = 0; index < count; index++) server.create(loadPod(round, index));
          return count;
        },
        'delete-pods': async (command) => {
          for (const name of command as string[]) server.delete('v1', 'Pod', name, LOAD_NAMESPACE);
          return (command as string[]).length;
        },
        exists: async (command) => {
          const { apiVersion, kind, name, namespace } = command as Record<string, string>;
          return server.get(apiVersion!, kind!, name!, namespace) !== undefined;
        },
        // An outage as clients see one: connections refused, watches ended; the store survives.
        'go-down': () => server.stop(),
        'come-back': async () => void (await server.start({ host: '127.0.0.1', port })),
        'ca-bundle': async () => {
          const configuration = server.get(
            'admissionregistration.k8s.io/v1',
            'ValidatingWebhookConfiguration',
            DEFAULT_WEBHOOK_NAMES.resourceValidating,
          );
          const webhooks = (configuration?.webhooks as JsonObject[] | undefined) ?? [];
          const bundle = (webhooks[0]?.clientConfig as JsonObject | undefined)?.caBundle as string | undefined;
          return Buffer.from(bundle ?? '', 'base64').toString('utf8');
        },
      },
    };
  },
};
