/**
 * `InMemoryApiServer`, the composition root: an in-memory store, the registry of served types, the
 * admission chain (ServiceAccount plugin, webhooks), the storage with its lifecycle observers
 * (namespaces, CRDs), the direct typed client, and the HTTP server with its router. The controller
 * manager and garbage collector are not part of it: `@edict/controller-manager` runs them against
 * `server.client`, as kube-controller-manager runs next to kube-apiserver.
 */
import { type JsonObject, isObject } from '@edict/foundation';
import { NO_ADMISSION } from './admission/admission-steps';
import type { ServiceEndpoints } from './admission/caller';
import { withServiceAccountAdmission } from './admission/service-account-admission';
import type { AdmissionChain } from './admission/types';
import { AuditLog } from './admission/audit-log';
import { WebhookCallLog } from './admission/webhook-calls';
import { NativePolicyAdmission } from './admission/native-policy-admission';
import { storedPolicyObjects } from './admission/native/policy-source';
import { WebhookAdmission } from './admission/webhook-admission';
import { ApiClient } from './client/api-client';
import { FaultInjector } from './http/faults';
import type { OpenWatch } from './http/watch';
import { HttpServer, type StartOptions } from './http/http-server';
import { RequestLog } from './http/request-log';
import { ResourceRouter } from './http/router';
import { AdmissionPolicyTypeChecking } from './admission/native/type-checking';
import { CrdLifecycle } from './lifecycle/crd-lifecycle';
import { NamespaceLifecycle } from './lifecycle/namespace-lifecycle';
import { admissionPolicyTypes, type ApiServerSettings } from './registry/admission-policy-types';
import { BUILTIN_TYPES } from './registry/builtin-types';
import { ResourceRegistry } from './registry/registry';
import type { ListOptions } from './resources/list';
import { BOOTSTRAP_RBAC } from './resources/rbac';
import { authorizeAccess, type AuthorizationMode } from './resources/reviews';
import { ResourceService } from './resources/service';
import type { PropagationPolicy } from './resources/write-options';
import { SubresourceService } from './resources/subresources';
import { ObjectStore } from './store/object-store';
import type { ClusterCa } from './tls/cluster-ca';

export type { StartOptions } from './http/http-server';

export interface InMemoryApiServerOptions {
  /** Change events kept for watches resuming from a resourceVersion (older ones get 410). */
  readonly historyLimit?: number;
  /** How often watches that allow bookmarks receive one. */
  readonly bookmarkIntervalMs?: number;
  /** Namespaces present at start (kube's defaults unless given). */
  readonly namespaces?: readonly string[];
  /**
   * Local stand-ins for the services webhook configurations name: `namespace/name` (or
   * `namespace/name:port`) → base URL, e.g. `{ 'kyverno/kyverno-svc': 'https://127.0.0.1:9443' }`.
   * The webhook's `service.path` is kept; its certificate must be valid for `<name>.<namespace>.svc`.
   */
  readonly serviceEndpoints?: ServiceEndpoints;
  /** Kept-alive webhook connections idle this long are closed (default 4 s; see webhook-agents.ts). */
  readonly webhookIdleTimeoutMs?: number;
  /** Requests the request log keeps (default 10,000; the oldest are dropped). */
  readonly requestLogLimit?: number;
  /** Calls admission webhooks on HTTP writes (default true). */
  readonly admission?: boolean;
  /**
   * Runs kube-apiserver's ServiceAccount admission plugin ahead of the webhooks (default false): Pods
   * run as `default` unless they name an account, which must exist (the controller manager creates
   * `default` in every namespace), and mount its token. Off, as with `--disable-admission-plugins=ServiceAccount`.
   */
  readonly serviceAccountAdmission?: boolean;
  /**
   * How access reviews (SubjectAccessReview, SelfSubjectAccessReview...) are answered, as
   * kube-apiserver's `--authorization-mode` (default AlwaysAllow). RBAC also authorizes every HTTP
   * request (403 Forbidden as kube answers) and creates kube's bootstrap roles every request meets
   * (`cluster-admin`, bound to the default user's group as kubeadm does, and the discovery roles of
   * every authenticated user). Direct typed calls (`create`, `get`...) act as the cluster itself.
   */
  readonly authorization?: { readonly mode?: AuthorizationMode };
  /**
   * The cluster CA (`createClusterCa()`): the server then serves HTTPS with a certificate it signs
   * and authenticates client certificates it signed (CN the user, O the groups). Without it, plain HTTP.
   */
  readonly ca?: ClusterCa;
  /**
   * The Kubernetes version, runtime config and feature gates the served APIs follow, as a kind
   * cluster configuration sets kube-apiserver: which admissionregistration versions serve
   * ValidatingAdmissionPolicy and MutatingAdmissionPolicy (default: kube 1.32's, VAP v1 only).
   */
  readonly settings?: ApiServerSettings;
}

const DEFAULT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export class InMemoryApiServer {
  readonly store: ObjectStore;
  readonly registry: ResourceRegistry;
  readonly resources: ResourceService;
  /** The direct typed client (no HTTP): what the controller manager and in-process callers use. */
  readonly client: ApiClient;
  /** Test fault injection: failing or holding requests (see `faults.ts`). */
  readonly faults = new FaultInjector();
  /** Test record of the requests answered, with their users (`requests.start()` turns it on). */
  readonly requests: RequestLog;
  /** The audit annotations admission gave requests (admission policies' auditAnnotations and Audit actions). */
  readonly audit = new AuditLog();
  /** Every admission webhook call the server made (which webhook, for which request). */
  readonly webhookCalls = new WebhookCallLog();
  /** The cluster CA given at construction, if any (the controller manager's CSR signer uses it). */
  readonly ca: ClusterCa | undefined;
  private readonly http: HttpServer;
  private readonly watches = new Set<OpenWatch>();
  /** The webhook chain, whose kept-alive webhook connections close with the server. */
  private readonly webhooks: WebhookAdmission | undefined;

  constructor(options: InMemoryApiServerOptions = {}) {
    const authorizationMode = options.authorization?.mode ?? 'AlwaysAllow';
    const store = new ObjectStore({ historyLimit: options.historyLimit });
    this.store = store;
    this.requests = new RequestLog(options.requestLogLimit);
    this.registry = new ResourceRegistry([...BUILTIN_TYPES, ...admissionPolicyTypes(options.settings)]);
    this.ca = options.ca;
    this.webhooks =
      options.admission === false ? undefined : webhookAdmission(store, authorizationMode, options, this.webhookCalls);
    const admission = this.admissionChain(options, authorizationMode);
    this.resources = new ResourceService(store, {
      admission,
      observers: [
        new NamespaceLifecycle(store),
        new CrdLifecycle(store, this.registry),
        new AdmissionPolicyTypeChecking(this.registry),
      ],
    });
    this.client = new ApiClient(this.resources, this.registry, store);
    const router = new ResourceRouter({
      store,
      registry: this.registry,
      resources: this.resources,
      subresources: new SubresourceService(this.resources, admission),
      authorizationMode,
      bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
      watches: this.watches,
    });
    this.http = new HttpServer({
      store,
      registry: this.registry,
      router,
      faults: this.faults,
      requests: this.requests,
      authorizationMode,
      ca: options.ca,
    });
    for (const name of options.namespaces ?? DEFAULT_NAMESPACES) {
      this.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
    if (authorizationMode === 'RBAC') for (const object of BOOTSTRAP_RBAC) this.create(object);
  }

  /** Listens on `host:port` (default 127.0.0.1, a free port) and resolves with the base URL. */
  start(options: StartOptions = {}): Promise<{ url: string; port: number }> {
    return this.http.start(options);
  }

  /** Ends open watches and connections, then stops listening. The stored state is kept. */
  async stop(): Promise<void> {
    await this.http.stop(() => {
      this.closeWatches();
      this.webhooks?.close();
    });
  }

  /** Ends every open watch stream (clients see the stream end, as on an apiserver restart). */
  closeWatches(): void {
    for (const watch of [...this.watches]) watch.close();
  }

  /** Forgets watch history so that resuming from an older resourceVersion answers 410 Expired. */
  compact(resourceVersion?: number): void {
    this.store.compact(resourceVersion);
  }

  // Direct typed access (no HTTP, no admission): `client`'s calls, kept here for brevity in tests.

  create(object: JsonObject, options: { dryRun?: boolean } = {}): JsonObject {
    return this.client.create(object, options);
  }

  get(apiVersion: string, kind: string, name: string, namespace?: string): JsonObject | undefined {
    return this.client.get(apiVersion, kind, name, namespace);
  }

  list(apiVersion: string, kind: string, namespace?: string, options: ListOptions = {}): JsonObject[] {
    return this.client.list(apiVersion, kind, namespace, options);
  }

  update(object: JsonObject): JsonObject {
    return this.client.update(object);
  }

  delete(
    apiVersion: string,
    kind: string,
    name: string,
    namespace?: string,
    options: { propagationPolicy?: PropagationPolicy } = {},
  ): void {
    this.client.delete(apiVersion, kind, name, namespace, options);
  }

  /**
   * kube's order: the ServiceAccount plugin (if asked for), the admission policies, then the
   * webhooks (mutating policies before mutating webhooks, validating policies before validating
   * webhooks); no chain at all without admission.
   */
  private admissionChain(options: InMemoryApiServerOptions, authorizationMode: AuthorizationMode): AdmissionChain {
    if (!this.webhooks) return NO_ADMISSION;
    const store = this.store;
    const policies = new NativePolicyAdmission(
      {
        objects: storedPolicyObjects(store, this.registry),
        authorize: (request) => authorizeAccess(authorizationMode, store, request),
        audit: this.audit,
      },
      this.webhooks,
    );
    if (!options.serviceAccountAdmission) return policies;
    return withServiceAccountAdmission(policies, (namespace, name) => store.get('/serviceaccounts', namespace, name));
  }
}

/** The webhook chain over the stored webhook configurations. */
function webhookAdmission(
  store: ObjectStore,
  authorizationMode: AuthorizationMode,
  options: InMemoryApiServerOptions,
  calls: WebhookCallLog,
): WebhookAdmission {
  return new WebhookAdmission(
    {
      mutatingConfigurations: () => store.list('admissionregistration.k8s.io/mutatingwebhookconfigurations'),
      validatingConfigurations: () => store.list('admissionregistration.k8s.io/validatingwebhookconfigurations'),
      namespaceLabels: (name) => {
        const namespace = store.get('/namespaces', '', name);
        if (!namespace) return undefined;
        const metadata = isObject(namespace.metadata) ? namespace.metadata : {};
        return isObject(metadata.labels) ? (metadata.labels as Record<string, string>) : {};
      },
      authorize: (request) => authorizeAccess(authorizationMode, store, request),
    },
    options.serviceEndpoints ?? {},
    options.webhookIdleTimeoutMs !== undefined ? { idleTimeoutMs: options.webhookIdleTimeoutMs } : {},
    calls,
  );
}
