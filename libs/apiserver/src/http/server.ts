/**
 * `InMemoryApiServer`: a plain Node HTTP server speaking the Kubernetes REST protocol over an
 * in-memory store, plus direct typed access for tests (no HTTP round trip needed to seed or read).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { SERVING_TLS_OPTIONS } from '@edict/config';
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import { ResourceRegistry } from '../registry/registry';
import { apiVersionOf, type ResourceType } from '../registry/resource-type';
import { compileFilter, type ListOptions } from '../resources/list';
import { PATCH_CONTENT_TYPES, ResourceService, type DeleteOptions, type PropagationPolicy } from '../resources/service';
import type { UpdateSubresource } from '../resources/prepare';
import type { ServiceEndpoints } from '../admission/caller';
import type { AdmissionRequestContext } from '../admission/types';
import { withServiceAccountAdmission } from '../admission/service-account-admission';
import { WebhookAdmission } from '../admission/webhook-admission';
import { ControllerManager } from '../controllers/controller-manager';
import { GarbageCollector } from '../gc/garbage-collector';
import { authenticatedUser, impersonationOf, requestUser, warningHeader } from './request-context';
import { authorizeRequest, requestAttributes } from './request-authorization';
import { ApiError, badRequest, invalid, methodNotAllowed, pathNotFound, unsupportedMediaType } from '../status';
import { ObjectStore } from '../store/object-store';
import { SubresourceService } from '../resources/subresources';
import { answerReview, authorizeAccess, isReviewType, type AuthorizationMode } from '../resources/reviews';
import { BOOTSTRAP_RBAC } from '../resources/rbac';
import type { ClusterCa } from '../tls/cluster-ca';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, rootPaths, SERVER_VERSION } from './discovery';
import { mediaType, parseBody, readBody, sendError, sendJson, sendText } from './io';
import { serveOpenApi } from './openapi-http';
import { fieldValidation, noteDuplicates } from './request-fields';
import { resolveResourcePath, type ResourceRoute } from './route';
import { FaultInjector } from './faults';
import { RequestLog } from './request-log';
import { startWatch, type OpenWatch } from './watch';
import { printerFor, requestedRepresentation, toTable, type Representation } from '../tables/table';
import { checkWatchable, partialList, partialObject } from './partial-metadata';

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
  /** Deletes dependents of removed owners (default true). */
  readonly garbageCollection?: boolean;
  /**
   * Runs kube-controller-manager's Deployment, ReplicaSet, service account, ClusterRole aggregation
   * and (with `ca`) client CSR signing controllers (default false): they write through the API, as a
   * cluster without nodes would (Pods stay Pending).
   */
  readonly controllers?: boolean;
  /**
   * Runs kube-apiserver's ServiceAccount admission plugin ahead of the webhooks (default false): Pods
   * run as `default` unless they name an account, which must exist (the controllers create `default`
   * in every namespace), and mount its token. Off, as with `--disable-admission-plugins=ServiceAccount`.
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
   * and authenticates client certificates it signed (CN the user, O the groups), and the controllers
   * sign approved `kubernetes.io/kube-apiserver-client` CSRs with it. Without it, plain HTTP.
   */
  readonly ca?: ClusterCa;
}

export interface StartOptions {
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
}

const DEFAULT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export class InMemoryApiServer {
  readonly store: ObjectStore;
  readonly registry: ResourceRegistry;
  readonly resources: ResourceService;
  private readonly subresources: SubresourceService;
  /** Test fault injection: failing or holding requests (see `faults.ts`). */
  readonly faults = new FaultInjector();
  /** Test record of the requests answered, with their users (`requests.start()` turns it on). */
  readonly requests: RequestLog;
  /** The ownerReferences garbage collector (`await server.gc?.settled()` waits for it). */
  readonly gc: GarbageCollector | undefined;
  /** The controller manager when enabled (`await server.controllers?.settled()` waits for them). */
  readonly controllers: ControllerManager | undefined;
  private readonly bookmarkIntervalMs: number;
  private readonly authorizationMode: AuthorizationMode;
  private readonly ca: ClusterCa | undefined;
  private server: Server | undefined;
  private readonly watches = new Set<OpenWatch>();
  /** The webhook chain, whose kept-alive webhook connections close with the server. */
  private readonly webhooks: WebhookAdmission | undefined;
  private address = '127.0.0.1:0';

  constructor(options: InMemoryApiServerOptions = {}) {
    this.store = new ObjectStore({ historyLimit: options.historyLimit });
    this.requests = new RequestLog(options.requestLogLimit);
    this.registry = new ResourceRegistry();
    this.resources = new ResourceService(this.store, this.registry);
    this.subresources = new SubresourceService(this.resources);
    if (options.admission !== false) {
      const store = this.store;
      const webhooks = new WebhookAdmission(
        {
          mutatingConfigurations: () => store.list('admissionregistration.k8s.io/mutatingwebhookconfigurations'),
          validatingConfigurations: () => store.list('admissionregistration.k8s.io/validatingwebhookconfigurations'),
          namespaceLabels: (name) => {
            const namespace = store.get('/namespaces', '', name);
            const metadata = namespace && isObject(namespace.metadata) ? namespace.metadata : undefined;
            return metadata && isObject(metadata.labels) ? (metadata.labels as Record<string, string>) : undefined;
          },
          authorize: (request) => authorizeAccess(this.authorizationMode, store, request),
        },
        options.serviceEndpoints ?? {},
        options.webhookIdleTimeoutMs !== undefined ? { idleTimeoutMs: options.webhookIdleTimeoutMs } : {},
      );
      this.webhooks = webhooks;
      this.resources.admission = options.serviceAccountAdmission
        ? withServiceAccountAdmission(webhooks, (namespace, name) => store.get('/serviceaccounts', namespace, name))
        : webhooks;
    }
    this.gc =
      options.garbageCollection === false ? undefined : new GarbageCollector(this.store, this.registry, this.resources);
    this.bookmarkIntervalMs = options.bookmarkIntervalMs ?? 60_000;
    this.authorizationMode = options.authorization?.mode ?? 'AlwaysAllow';
    for (const name of options.namespaces ?? DEFAULT_NAMESPACES) {
      this.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
    if (this.authorizationMode === 'RBAC') for (const object of BOOTSTRAP_RBAC) this.create(object);
    this.ca = options.ca;
    this.controllers = options.controllers
      ? new ControllerManager(this.store, this.resources, this.registry, options.ca)
      : undefined;
    this.controllers?.start();
  }

  /** Listens on `host:port` (default 127.0.0.1, a free port) and resolves with the base URL. */
  async start(options: StartOptions = {}): Promise<{ url: string; port: number }> {
    if (this.server) throw new Error('InMemoryApiServer is already started');
    this.controllers?.start();
    const host = options.host ?? '127.0.0.1';
    const handler = (request: IncomingMessage, response: ServerResponse) => void this.handle(request, response);
    let server: Server;
    if (this.ca) {
      const serving = await this.ca.serving({ dns: ['localhost', 'kubernetes.default.svc'], ips: [host] });
      // Client certificates are asked for, not required: a request without one is the default user.
      // The same versions and suites as the webhook's (no CBC, no RSA key exchange, TLS 1.2 or newer).
      const tls = {
        ...SERVING_TLS_OPTIONS,
        cert: serving.certPem,
        key: serving.keyPem,
        ca: [this.ca.certificatePem],
        requestCert: true,
      };
      server = createTlsServer({ ...tls, rejectUnauthorized: false }, handler);
    } else {
      server = createServer(handler);
    }
    server.keepAliveTimeout = 5_000;
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => resolve());
    });
    const { address, port } = server.address() as AddressInfo;
    this.address = `${address}:${port}`;
    return { url: `${this.ca ? 'https' : 'http'}://${address}:${port}`, port };
  }

  /** Stops the controllers, ends open watches and connections, then stops listening. The stored state is kept. */
  async stop(): Promise<void> {
    await this.controllers?.stop();
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.closeWatches();
    this.webhooks?.close();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
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

  // Direct typed access (no HTTP): the same semantics as the REST API.

  create(object: JsonObject, options: { dryRun?: boolean } = {}): JsonObject {
    const type = this.typeOf(object);
    return this.resources.create(type, namespaceOf(object), object, options).object;
  }

  get(apiVersion: string, kind: string, name: string, namespace?: string): JsonObject | undefined {
    try {
      return this.resources.get(this.typeFor(apiVersion, kind), namespace, name);
    } catch (error) {
      if (error instanceof ApiError && error.code === 404) return undefined;
      throw error;
    }
  }

  list(apiVersion: string, kind: string, namespace?: string, options: ListOptions = {}): JsonObject[] {
    return this.resources.list(this.typeFor(apiVersion, kind), namespace, options).items;
  }

  update(object: JsonObject): JsonObject {
    const type = this.typeOf(object);
    const name = String((object.metadata as JsonObject).name);
    return this.resources.update(type, namespaceOf(object), name, object).object;
  }

  delete(
    apiVersion: string,
    kind: string,
    name: string,
    namespace?: string,
    options: { propagationPolicy?: PropagationPolicy } = {},
  ): void {
    this.resources.delete(this.typeFor(apiVersion, kind), namespace, name, options);
  }

  private typeFor(apiVersion: string, kind: string): ResourceType {
    const type = this.registry.findByKind(apiVersion, kind);
    if (!type) throw badRequest(`no kind "${kind}" is registered for version "${apiVersion}"`);
    return type;
  }

  private typeOf(object: JsonObject): ResourceType {
    return this.typeFor(String(object.apiVersion), String(object.kind));
  }

  // HTTP

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      this.requests.observe(request, response);
      if (await this.faults.intercept(request, response)) return;
      const url = new URL(request.url ?? '/', 'http://localhost');
      const path = url.pathname.replace(/\/+$/, '') || '/';
      if (this.authorizationMode === 'RBAC') {
        const attributes = requestAttributes(request.method ?? 'GET', url.pathname, url.searchParams);
        authorizeRequest(this.store, authenticatedUser(request), impersonationOf(request), attributes);
      }
      if (this.serveStatic(path, url, response) || serveOpenApi(this.registry, path, request, response)) return;
      const route = resolveResourcePath(this.registry, path);
      if (!route || 'unknown' in route) throw pathNotFound();
      await this.serveResource(route, request, url.searchParams, response);
    } catch (error) {
      if (!response.headersSent) sendError(response, error);
      else response.end();
    }
  }

  /** Health, version, discovery and OpenAPI; `false` when the path is none of them. */
  private serveStatic(path: string, url: URL, response: ServerResponse): boolean {
    if (path === '/healthz' || path === '/readyz' || path === '/livez') {
      sendText(response, 200, 'ok');
      return true;
    }
    if (path === '/') return reply(response, rootPaths(this.registry));
    if (path === '/version') return reply(response, SERVER_VERSION);
    if (path === '/api') return reply(response, apiVersions(this.address));
    if (path === '/api/v1') return reply(response, apiResourceList(this.registry, '', 'v1'));
    if (path === '/apis') return reply(response, apiGroupList(this.registry));
    const groupMatch = /^\/apis\/([^/]+)(?:\/([^/]+))?$/.exec(path);
    if (groupMatch) {
      const [, group, version] = groupMatch;
      if (version === undefined) {
        const document = apiGroup(this.registry, group!);
        if (!document) throw pathNotFound();
        return reply(response, document);
      }
      if (!this.registry.hasGroupVersion(group!, version)) throw pathNotFound();
      return reply(response, apiResourceList(this.registry, group!, version));
    }
    void url;
    return false;
  }

  private async serveResource(
    route: ResourceRoute,
    request: IncomingMessage,
    query: URLSearchParams,
    response: ServerResponse,
  ): Promise<void> {
    const { type, subresource } = route;
    if (subresource !== undefined && !type.subresources.includes(subresource)) throw pathNotFound();
    const context: AdmissionRequestContext = {
      userInfo: requestUser(request),
      warnings: [],
      userAgent: request.headers['user-agent'],
    };
    const send = (code: number, body: JsonValue): void => {
      if (context.warnings.length > 0) response.setHeader('Warning', warningHeader(context.warnings));
      sendJson(response, code, body);
    };
    try {
      await this.serveResourceRequest(route, request, query, response, context, send);
    } catch (error) {
      // Warnings travel with failures too (a webhook may warn and deny).
      if (context.warnings.length > 0 && !response.headersSent) {
        response.setHeader('Warning', warningHeader(context.warnings));
      }
      throw error;
    }
  }

  private async serveResourceRequest(
    route: ResourceRoute,
    request: IncomingMessage,
    query: URLSearchParams,
    response: ServerResponse,
    context: AdmissionRequestContext,
    send: (code: number, body: JsonValue) => void,
  ): Promise<void> {
    const { type, namespace, name, subresource } = route;
    const method = request.method ?? 'GET';
    const dryRun = query.getAll('dryRun').includes('All');
    const contentType = mediaType(request.headers['content-type']);
    const duplicates: string[] = [];
    const body = async (): Promise<JsonValue | undefined> => {
      const raw = await readBody(request);
      const parsed = parseBody(raw, contentType);
      noteDuplicates(raw, contentType, query, duplicates);
      return parsed;
    };
    const listOptions = (): ListOptions => ({
      labelSelector: query.get('labelSelector') ?? undefined,
      fieldSelector: query.get('fieldSelector') ?? undefined,
      limit: query.has('limit') ? Number(query.get('limit')) : undefined,
      continue: query.get('continue') ?? undefined,
    });
    if (subresource === undefined) checkVerb(type, method, name === undefined, isWatch(query));
    const status = isUpdateSubresource(subresource) ? subresource : undefined;

    if (name === undefined) {
      // Collection: list, watch, create, deletecollection.
      if (method === 'GET' && isWatch(query)) {
        this.watch(type, namespace, query, listOptions(), request, response, context);
        return;
      }
      if (method === 'GET') {
        const representation = this.representationFor(type, request, query, context);
        const result = this.resources.list(type, namespace, listOptions());
        if (representation?.as === 'Table') {
          const table = toTable(type, result.items, listMetadata(result), representation.table, {
            headers: true,
            now: Date.now(),
          });
          send(200, table);
        } else if (representation) send(200, partialList(result.items, listMetadata(result), representation));
        else send(200, listBody(type, result));
        return;
      }
      if (method === 'POST' && isReviewType(type)) {
        if (type.namespaced && namespace === undefined) throw pathNotFound();
        const review = answerReview(
          type,
          namespace,
          (await body()) ?? null,
          context,
          this.authorizationMode,
          this.store,
        );
        send(201, review);
        return;
      }
      if (method === 'POST') {
        if (type.namespaced && namespace === undefined) throw pathNotFound();
        const result = await this.resources.createAdmitted(
          type,
          namespace,
          (await body()) ?? null,
          {
            dryRun,
            fieldManager: query.get('fieldManager') ?? undefined,
            ...fieldValidation(query, 'CreateOptions', context, duplicates),
          },
          context,
        );
        send(result.code, result.object);
        return;
      }
      if (method === 'DELETE') {
        const options = deleteOptions(await body(), dryRun, query);
        const result = await this.resources.deleteCollectionAdmitted(type, namespace, listOptions(), options, context);
        send(200, listBody(type, result));
        return;
      }
      throw methodNotAllowed();
    }
    if (type.namespaced && namespace === undefined) throw pathNotFound();
    if (subresource !== undefined && !status) {
      await this.serveSubresource(route as ResourceRoute & { name: string; subresource: string }, request, query, {
        method,
        dryRun,
        contentType,
        body,
        context,
        send,
        response,
      });
      return;
    }

    switch (method) {
      case 'GET': {
        if (isWatch(query)) {
          const fieldSelector = [`metadata.name=${name}`, query.get('fieldSelector')].filter(Boolean).join(',');
          this.watch(type, namespace, query, { ...listOptions(), fieldSelector }, request, response, context);
          return;
        }
        const representation = this.representationFor(type, request, query, context);
        const object = this.resources.get(type, namespace, name);
        if (!representation) return send(200, object);
        if (representation.as !== 'Table') return send(200, partialObject(object, representation));
        const metadata = { resourceVersion: String((object.metadata as JsonObject).resourceVersion ?? '') };
        send(200, toTable(type, [object], metadata, representation.table, { headers: true, now: Date.now() }));
        return;
      }
      case 'PUT': {
        const result = await this.resources.updateAdmitted(
          type,
          namespace,
          name,
          (await body()) ?? null,
          {
            dryRun,
            subresource: status,
            fieldManager: query.get('fieldManager') ?? undefined,
            ...fieldValidation(query, 'UpdateOptions', context, duplicates),
          },
          context,
        );
        send(result.code, result.object);
        return;
      }
      case 'PATCH': {
        const patchType = PATCH_CONTENT_TYPES[contentType];
        if (!patchType) {
          throw unsupportedMediaType(Object.keys(PATCH_CONTENT_TYPES).join(', '));
        }
        const patch = await body();
        if (patch === undefined) throw badRequest('the body of the request is empty');
        const result = await this.resources.patchAdmitted(
          type,
          namespace,
          name,
          patchType,
          patch,
          {
            dryRun,
            subresource: status,
            fieldManager: query.get('fieldManager') ?? undefined,
            force: query.get('force') === 'true',
            ...fieldValidation(query, 'PatchOptions', context, duplicates),
          },
          context,
        );
        send(result.code, result.object);
        return;
      }
      case 'DELETE': {
        if (status) throw methodNotAllowed();
        const options = deleteOptions(await body(), dryRun, query);
        const result = await this.resources.deleteAdmitted(type, namespace, name, options, context);
        send(result.code, result.object);
        return;
      }
      default:
        throw methodNotAllowed();
    }
  }

  /** Subresources with their own kind (`subresources.ts`): scale, eviction, exec/attach/portforward, log, token. */
  private async serveSubresource(
    route: ResourceRoute & { name: string; subresource: string },
    request: IncomingMessage,
    query: URLSearchParams,
    call: {
      method: string;
      dryRun: boolean;
      contentType: string;
      body: () => Promise<JsonValue | undefined>;
      context: AdmissionRequestContext;
      send: (code: number, body: JsonValue) => void;
      response: ServerResponse;
    },
  ): Promise<void> {
    const { type, namespace, name, subresource } = route;
    const { method, dryRun, context, send } = call;
    const fieldManager = query.get('fieldManager') ?? undefined;
    switch (subresource) {
      case 'scale': {
        if (method === 'GET') return send(200, this.subresources.getScale(type, namespace, name));
        if (method === 'PUT') {
          const body = (await call.body()) ?? null;
          return send(
            200,
            await this.subresources.writeScale(type, namespace, name, { body }, { dryRun, fieldManager }, context),
          );
        }
        if (method === 'PATCH') {
          const patchType = PATCH_CONTENT_TYPES[call.contentType];
          if (!patchType) throw unsupportedMediaType(Object.keys(PATCH_CONTENT_TYPES).join(', '));
          const patch = await call.body();
          if (patch === undefined) throw badRequest('the body of the request is empty');
          return send(
            200,
            await this.subresources.writeScale(
              type,
              namespace,
              name,
              { patchType, patch },
              { dryRun, fieldManager },
              context,
            ),
          );
        }
        throw methodNotAllowed();
      }
      case 'eviction': {
        if (method !== 'POST') throw methodNotAllowed();
        const budgets = this.registry.find('policy', 'v1', 'poddisruptionbudgets');
        const body = (await call.body()) ?? null;
        return send(201, await this.subresources.evict(namespace!, name, body, { dryRun }, context, type, budgets));
      }
      case 'exec':
      case 'attach':
      case 'portforward':
        if (method !== 'GET' && method !== 'POST') throw methodNotAllowed();
        return this.subresources.connect(type, namespace!, name, subresource, query, context);
      case 'log':
        if (method !== 'GET') throw methodNotAllowed();
        return sendText(call.response, 200, this.subresources.log(type, namespace!, name, query));
      case 'token': {
        if (method !== 'POST') throw methodNotAllowed();
        const body = (await call.body()) ?? null;
        return send(201, await this.subresources.requestToken(type, namespace!, name, body, { dryRun }, context));
      }
      default:
        void request;
        throw pathNotFound();
    }
  }

  /** The Table or metadata-only form the request asks for, if any; Table columns this server cannot fill become warnings. */
  private representationFor(
    type: ResourceType,
    request: IncomingMessage,
    query: URLSearchParams,
    context: AdmissionRequestContext,
  ): Representation | undefined {
    const representation = requestedRepresentation(request.headers.accept, query);
    if (representation?.as === 'Table') context.warnings.push(...printerFor(type).problems);
    return representation;
  }

  private watch(
    type: ResourceType,
    namespace: string | undefined,
    query: URLSearchParams,
    options: ListOptions,
    request: IncomingMessage,
    response: ServerResponse,
    context: AdmissionRequestContext,
  ): void {
    const filter = compileFilter(type, options);
    const representation = this.representationFor(type, request, query, context);
    if (representation && representation.as !== 'Table') checkWatchable(representation);
    if (context.warnings.length > 0) response.setHeader('Warning', warningHeader(context.warnings));
    const timeout = query.get('timeoutSeconds');
    const watch = startWatch(
      this.store,
      response,
      {
        type,
        namespace,
        filter,
        resourceVersion: query.get('resourceVersion') ?? undefined,
        allowBookmarks: query.get('allowWatchBookmarks') === 'true',
        timeoutSeconds: timeout === null ? undefined : Number(timeout),
        bookmarkIntervalMs: this.bookmarkIntervalMs,
        ...(representation?.as === 'Table' ? { table: representation.table } : {}),
        ...(representation && representation.as !== 'Table' ? { partialMetadata: representation } : {}),
      },
      (closed) => this.watches.delete(closed),
    );
    this.watches.add(watch);
  }
}

function reply(response: ServerResponse, body: JsonObject): true {
  sendJson(response, 200, body);
  return true;
}

/** Methods map to verbs; a verb the type does not serve answers 405, as kube-apiserver does. */
function checkVerb(type: ResourceType, method: string, collection: boolean, watch: boolean): void {
  const verbs: Record<string, string> = collection
    ? { GET: watch ? 'watch' : 'list', POST: 'create', DELETE: 'deletecollection' }
    : { GET: watch ? 'watch' : 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };
  const verb = verbs[method];
  if (verb !== undefined && !type.verbs.includes(verb)) throw methodNotAllowed();
}

const UPDATE_SUBRESOURCES: readonly string[] = [
  'status',
  'ephemeralcontainers',
  'approval',
] satisfies UpdateSubresource[];

function isUpdateSubresource(subresource: string | undefined): subresource is UpdateSubresource {
  return subresource !== undefined && UPDATE_SUBRESOURCES.includes(subresource);
}

function isWatch(query: URLSearchParams): boolean {
  const value = query.get('watch');
  return value === 'true' || value === '1';
}

function namespaceOf(object: JsonObject): string | undefined {
  const namespace = isObject(object.metadata) ? object.metadata.namespace : undefined;
  return typeof namespace === 'string' && namespace !== '' ? namespace : undefined;
}

function listMetadata(result: { resourceVersion: string; continue?: string; remainingItemCount?: number }): JsonObject {
  return {
    resourceVersion: result.resourceVersion,
    ...(result.continue ? { continue: result.continue } : {}),
    ...(result.remainingItemCount !== undefined ? { remainingItemCount: result.remainingItemCount } : {}),
  };
}

/** A list body: built-in lists carry items without kind/apiVersion, as kube-apiserver serves them. */
function listBody(
  type: ResourceType,
  result: { items: JsonObject[]; resourceVersion: string; continue?: string; remainingItemCount?: number },
): JsonObject {
  const items = type.builtin
    ? result.items.map(({ kind: _kind, apiVersion: _apiVersion, ...rest }) => rest)
    : result.items;
  return { kind: type.listKind, apiVersion: apiVersionOf(type), metadata: listMetadata(result), items };
}

const POLICIES: readonly string[] = ['Background', 'Foreground', 'Orphan'];

function deleteOptions(body: JsonValue | undefined, dryRun: boolean, query: URLSearchParams): DeleteOptions {
  const options = isObject(body) ? body : {};
  const preconditions = isObject(options.preconditions) ? options.preconditions : undefined;
  const bodyDryRun = Array.isArray(options.dryRun) && options.dryRun.includes('All');
  const requested = options.propagationPolicy ?? query.get('propagationPolicy') ?? undefined;
  const orphan = options.orphanDependents === true || query.get('orphanDependents') === 'true';
  if (requested !== undefined && (typeof requested !== 'string' || !POLICIES.includes(requested))) {
    throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions', name: '' }, [
      {
        reason: 'FieldValueNotSupported',
        field: 'propagationPolicy',
        message: `Unsupported value: ${JSON.stringify(requested)}: supported values: "Foreground", "Background", "Orphan"`,
      },
    ]);
  }
  const propagationPolicy = (requested as PropagationPolicy | undefined) ?? (orphan ? 'Orphan' : undefined);
  return {
    dryRun: dryRun || bodyDryRun,
    ...(propagationPolicy ? { propagationPolicy } : {}),
    ...(preconditions
      ? {
          preconditions: {
            ...(typeof preconditions.resourceVersion === 'string'
              ? { resourceVersion: preconditions.resourceVersion }
              : {}),
            ...(typeof preconditions.uid === 'string' ? { uid: preconditions.uid } : {}),
          },
        }
      : {}),
  };
}
