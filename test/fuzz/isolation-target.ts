/**
 * The tenant-isolation fuzzer's cluster: the in-memory API server (with Kyverno's CRDs) holding the
 * same baseline objects in the tenant's namespace, in other namespaces and at cluster scope, and the
 * real write paths over HTTP with the project's client: the engine evaluating the tenant's Policy
 * (admission mutate, then the UpdateRequests admission would create), the background controller's
 * UpdateRequestProcessor doing them, and the cleanup controller's run of a CleanupPolicy. Every
 * change the store sees while a case runs is recorded; the tenant's namespace is then put back to
 * its baseline in-process, so one cluster serves a whole run.
 */
import { updateRequestsFor, type UpdateRequestSpec } from '@edict/admission';
import { InMemoryApiServer } from '@edict/apiserver';
import {
  kubeClusterObjects,
  UPDATE_REQUEST_API_VERSION,
  UPDATE_REQUEST_KIND,
  UpdateRequestProcessor,
} from '@edict/background-controller';
import { kubeCleanupCluster, runCleanupPolicy } from '@edict/cleanup-controller';
import { ClusterEngine, ContextApiCallers, GlobalContextStore, unavailableImageData } from '@edict/context';
import {
  Engine,
  type CleanupPolicy,
  type CompiledPolicy,
  type ContextLoaders,
  type Policy,
  type ResourceRequest,
} from '@edict/engine';
import { type JsonObject, type KubeObject } from '@edict/foundation';
import { KubeHttpClient, KubeResources } from '@edict/kube';
import { kubeConfigForUrl } from '@edict/kube/testing';
import { installPolicyCrds, type CachedPolicy } from '@edict/policy';
import { OTHER_NAMESPACES, TENANT_NAMESPACE, type TenantCase } from './generators/tenant-policy';

/** Where the background controller keeps its UpdateRequests. */
const CONTROLLER_NAMESPACE = 'kyverno';
const TENANT = { username: 'alice', groups: ['system:authenticated'] };
/** API groups of Kyverno's own kinds, which a namespaced policy may not write even in its namespace. */
const KYVERNO_GROUPS = /(^|\.)kyverno\.io$|^wgpolicyk8s\.io$/;

/** One change the store saw: its group resource (`/configmaps`), namespace ('' when cluster-scoped) and name. */
export interface Change {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly groupResource: string;
  readonly namespace: string;
  readonly name: string;
}

export interface CaseResult {
  /** Changes the tenant's policies must not be able to make. */
  readonly violations: Change[];
  /** Changes inside the tenant's namespace (allowed). */
  readonly allowed: number;
}

/** The same objects in each namespace: what a policy might read, clone, patch or delete. */
function namespacedBaseline(namespace: string): JsonObject[] {
  return [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm-1', namespace, labels: { app: 'x' } },
      data: { k: 'v' },
    },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db', namespace, labels: { app: 'x' } },
      data: { p: 'cA==' },
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'r', namespace },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
    },
    {
      apiVersion: 'kyverno.io/v1',
      kind: 'Policy',
      metadata: { name: 'guard', namespace },
      spec: { rules: [] },
    },
  ];
}

const CLUSTER_BASELINE: JsonObject[] = [
  ...[TENANT_NAMESPACE, ...OTHER_NAMESPACES.filter((n) => n !== 'kube-system'), CONTROLLER_NAMESPACE].map((name) => ({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name },
  })),
  {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'require-team-label' },
    spec: {
      validationFailureAction: 'Enforce',
      rules: [
        {
          name: 'check-team',
          match: { any: [{ resources: { kinds: ['Pod'] } }] },
          validate: { message: 'team label required', pattern: { metadata: { labels: { team: '?*' } } } },
        },
      ],
    },
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'tenant-view' },
    rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
  },
];

export class IsolationTarget {
  private readonly engine = new Engine();
  private readonly cleanupCluster;
  private readonly processor: UpdateRequestProcessor;
  private current: CachedPolicy | undefined;
  private recording: Change[] | undefined;
  /** Tenant-namespace objects touched since the last reset, by `groupResource namespace/name`. */
  private readonly touched = new Map<string, Change>();
  private readonly baseline = new Map<string, JsonObject>();
  private cases = 0;
  private lastChange: Change | undefined;

  private constructor(
    private readonly server: InMemoryApiServer,
    private readonly resources: KubeResources,
    private readonly clusterEngine: ClusterEngine,
    private readonly callers: ContextApiCallers,
  ) {
    this.cleanupCluster = kubeCleanupCluster(resources);
    this.processor = new UpdateRequestProcessor(
      {
        engine: clusterEngine,
        cluster: kubeClusterObjects(resources),
        namespaceLabels: async (namespace) =>
          namespace
            ? ((server.get('v1', 'Namespace', namespace)?.metadata as KubeObject['metadata'])?.labels ?? {})
            : undefined,
        emit: () => undefined,
        generateSuccessEvents: () => false,
        policy: (key) => (key === this.current?.key ? this.current : undefined),
        report: async () => undefined,
      },
      { namespace: CONTROLLER_NAMESPACE, maxRetries: 0, admissionWaitMs: 0 },
    );
    server.store.subscribe((event) => {
      const metadata = event.object.metadata as { name?: string } | undefined;
      const change: Change = {
        type: event.type,
        groupResource: event.groupResource,
        namespace: event.namespace,
        name: metadata?.name ?? '',
      };
      this.lastChange = change;
      this.recording?.push(change);
      if (change.namespace === TENANT_NAMESPACE) this.touched.set(keyOf(change), change);
    });
  }

  static async start(): Promise<IsolationTarget> {
    const server = new InMemoryApiServer({ historyLimit: 1_000 });
    const { url } = await server.start({ host: '127.0.0.1', port: 0 });
    installPolicyCrds(server);
    const resources = new KubeResources(new KubeHttpClient(kubeConfigForUrl(url)));
    const callers = new ContextApiCallers(
      { apiCallTimeoutMs: 2_000, maxApiCallResponseBytes: 1 << 20, egressBlockedCidrs: [] },
      resources,
    );
    // No GlobalContextEntries and no registry here: rules reading them fail, as with a missing entry.
    const noEntries = new GlobalContextStore({
      openResource: () => Promise.reject(new Error('no resources in the isolation fuzzer')),
      callApi: () => Promise.reject(new Error('no apiCalls in the isolation fuzzer')),
    });
    const clusterEngine = new ClusterEngine(resources, {
      callers,
      globalContext: noEntries,
      images: unavailableImageData,
    });
    const target = new IsolationTarget(server, resources, clusterEngine, callers);
    for (const object of CLUSTER_BASELINE) server.create(object);
    for (const namespace of [TENANT_NAMESPACE, ...OTHER_NAMESPACES]) {
      for (const object of namespacedBaseline(namespace)) {
        server.create(object);
        if (namespace === TENANT_NAMESPACE && target.lastChange) target.baseline.set(keyOf(target.lastChange), object);
      }
    }
    target.touched.clear();
    return target;
  }

  /**
   * Runs one case and answers what changed outside the tenant's namespace (or of Kyverno's kinds
   * inside it); undefined when the policy does not compile (refused before anything runs).
   */
  async run(input: TenantCase): Promise<CaseResult | undefined> {
    let compiled: CompiledPolicy;
    try {
      compiled = this.engine.compile(input.policy as unknown as Policy);
    } catch {
      return undefined;
    }
    const n = ++this.cases;
    this.current = {
      key: `${TENANT_NAMESPACE}/escape`,
      kind: 'Policy',
      name: 'escape',
      namespace: TENANT_NAMESPACE,
      compiled,
      failurePolicy: 'Fail',
      admission: true,
      ruleTypes: new Set(),
      warnings: [],
    };
    const changes: Change[] = [];
    const requests = new Set<string>();
    this.recording = changes;
    try {
      await this.admitTrigger(n, input, compiled, requests);
      if (input.cleanupPolicy) await this.cleanUp(input.cleanupPolicy as unknown as CleanupPolicy);
    } finally {
      this.recording = undefined;
      this.reset(requests);
    }
    const violations = changes.filter((change) => !this.allowed(change, requests));
    return { violations, allowed: changes.length - violations.length };
  }

  stop(): Promise<void> {
    this.callers.onModuleDestroy();
    return this.server.stop();
  }

  /**
   * The tenant creates a ConfigMap: admission mutates it (the API server then stores it in the
   * namespace of the request, or refuses a moved object), and the UpdateRequests admission would
   * create for it are processed, one step each.
   */
  private async admitTrigger(n: number, input: TenantCase, compiled: CompiledPolicy, requests: Set<string>) {
    const trigger: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `trigger-${n}`, namespace: TENANT_NAMESPACE, uid: `trigger-uid-${n}` },
      data: { ...input.trigger },
    };
    const request: ResourceRequest = {
      operation: 'CREATE',
      resource: trigger,
      user: { userInfo: TENANT },
    } as ResourceRequest;
    const mutated = await this.clusterEngine.mutate(compiled, request).catch(() => undefined);
    const admitted = (mutated?.patchedResource ?? trigger) as KubeObject;
    let stored: KubeObject | undefined;
    try {
      stored = await this.resources.http.json<KubeObject>({
        method: 'POST',
        path: `/api/v1/namespaces/${TENANT_NAMESPACE}/configmaps`,
        body: admitted,
      });
    } catch {
      return; // the API server refused the admitted object: no trigger, nothing to do
    }
    let specs: UpdateRequestSpec[];
    try {
      specs = await updateRequestsFor(
        { ...request, resource: stored as typeof request.resource },
        [compiled],
        this.clusterEngine,
      );
    } catch {
      return;
    }
    for (const [index, spec] of specs.entries()) {
      const name = `ur-${n}-${index}`;
      requests.add(name);
      const created = this.server.create({
        apiVersion: UPDATE_REQUEST_API_VERSION,
        kind: UPDATE_REQUEST_KIND,
        metadata: { name, namespace: CONTROLLER_NAMESPACE },
        spec: spec as unknown as JsonObject,
        status: { state: 'Pending' },
      });
      await this.processor.step(name, created as never);
    }
  }

  private async cleanUp(policy: CleanupPolicy): Promise<void> {
    await runCleanupPolicy(policy, {
      cluster: this.cleanupCluster,
      loaders: {} as ContextLoaders,
      maxTargets: 500,
      report: () => undefined,
    }).catch(() => undefined);
  }

  /**
   * Inside the tenant's namespace, anything but Kyverno's kinds; outside it, only the case's own
   * UpdateRequests (the controller's bookkeeping).
   */
  private allowed(change: Change, requests: ReadonlySet<string>): boolean {
    const group = change.groupResource.slice(0, change.groupResource.indexOf('/'));
    if (change.namespace === TENANT_NAMESPACE) return !KYVERNO_GROUPS.test(group);
    return (
      change.namespace === CONTROLLER_NAMESPACE &&
      change.groupResource === 'kyverno.io/updaterequests' &&
      requests.has(change.name)
    );
  }

  /** The tenant's namespace back to its baseline, and the case's UpdateRequests gone. */
  private reset(requests: ReadonlySet<string>): void {
    for (const name of requests) {
      try {
        this.server.delete(UPDATE_REQUEST_API_VERSION, UPDATE_REQUEST_KIND, name, CONTROLLER_NAMESPACE);
      } catch {
        // processed and deleted already
      }
    }
    const touched = [...this.touched.values()];
    this.touched.clear();
    for (const change of touched) {
      const key = keyOf(change);
      const stored = this.findStored(change);
      if (stored) {
        const metadata = stored.metadata as { name: string; namespace?: string };
        this.server.delete(String(stored.apiVersion), String(stored.kind), metadata.name, metadata.namespace);
      }
      const original = this.baseline.get(key);
      if (original) this.server.create(structuredClone(original));
    }
    this.touched.clear();
  }

  private findStored(change: Change): JsonObject | undefined {
    return this.server.store.get(change.groupResource, change.namespace, change.name);
  }
}

function keyOf(change: Pick<Change, 'groupResource' | 'namespace' | 'name'>): string {
  return `${change.groupResource} ${change.namespace}/${change.name}`;
}
