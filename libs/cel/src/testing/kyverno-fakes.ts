import { matchesLabelSelector, type JsonObject, type JsonValue } from '@edict/foundation';
import {
  CelPortError,
  type CelGlobalContextPort,
  type CelGroupVersionResource,
  type CelHttpPort,
  type CelHttpRequest,
  type CelHttpResponse,
  type CelImageDataPort,
  type CelPortCall,
  type CelResourcePort,
  type CelResourceTarget,
} from '../kyverno/ports';

/** An answer of the fake HTTP port: by method and exact URL. */
export interface FakeHttpRoute {
  readonly method?: CelHttpRequest['method'];
  readonly url: string;
  readonly statusCode?: number;
  /** A JSON value (encoded for the answer) or raw text. */
  readonly body: JsonValue | { readonly raw: string };
}

/** Answers routes it was given; records every request; an unknown URL is a 404 with no JSON body. */
export class FakeHttpPort implements CelHttpPort {
  readonly requests: CelHttpRequest[] = [];
  readonly calls: CelPortCall[] = [];

  constructor(private readonly routes: readonly FakeHttpRoute[] = []) {}

  send(request: CelHttpRequest, call: CelPortCall): CelHttpResponse {
    this.requests.push(request);
    this.calls.push(call);
    const route = this.routes.find((r) => r.url === request.url && (r.method ?? 'GET') === request.method);
    if (!route) return { statusCode: 404, body: 'not found' };
    const body = isRaw(route.body) ? route.body.raw : JSON.stringify(route.body);
    return { statusCode: route.statusCode ?? 200, body };
  }
}

function isRaw(body: FakeHttpRoute['body']): body is { readonly raw: string } {
  return (
    typeof body === 'object' &&
    body !== null &&
    !Array.isArray(body) &&
    typeof body.raw === 'string' &&
    Object.keys(body).length === 1
  );
}

/**
 * Kubernetes objects in memory, addressed by apiVersion, plural resource, namespace and name
 * (`kinds` maps apiVersion+kind to the plural, for ToGVR). `forbidden` namespaces answer 403.
 */
export class FakeResourcePort implements CelResourcePort {
  readonly created: { target: CelResourceTarget; object: JsonObject }[] = [];
  readonly reads: (CelResourceTarget & { name?: string })[] = [];

  constructor(
    private readonly objects: { apiVersion: string; resource: string; object: JsonObject }[] = [],
    private readonly kinds: Readonly<Record<string, string>> = {},
    private readonly forbidden: readonly string[] = [],
  ) {}

  get(target: CelResourceTarget & { readonly name: string }): JsonObject | null {
    this.reads.push(target);
    this.check(target.namespace);
    return this.matching(target).find((o) => (o.metadata as JsonObject | undefined)?.name === target.name) ?? null;
  }

  list(target: CelResourceTarget & { readonly labels?: Readonly<Record<string, string>> }): JsonObject {
    this.reads.push(target);
    this.check(target.namespace);
    const items = this.matching(target).filter((o) =>
      target.labels
        ? matchesLabelSelector(
            { matchLabels: { ...target.labels } },
            ((o.metadata as JsonObject | undefined)?.labels ?? {}) as Record<string, string>,
          )
        : true,
    );
    const kind = this.kindOf(target);
    return { apiVersion: target.apiVersion, kind: `${kind}List`, metadata: { resourceVersion: '1' }, items };
  }

  create(target: CelResourceTarget, object: JsonObject): JsonObject {
    this.check(target.namespace);
    const stored: JsonObject = {
      ...object,
      metadata: {
        ...((object.metadata as JsonObject | undefined) ?? {}),
        ...(target.namespace ? { namespace: target.namespace } : {}),
        uid: `uid-${this.created.length + 1}`,
      },
    };
    this.created.push({ target, object: stored });
    this.objects.push({ apiVersion: target.apiVersion, resource: target.resource, object: stored });
    return stored;
  }

  toGVR(apiVersion: string, kind: string): CelGroupVersionResource {
    const resource = this.kinds[`${apiVersion}/${kind}`];
    if (!resource) throw new CelPortError(`no matches for kind "${kind}" in version "${apiVersion}"`, 'NotFound');
    const slash = apiVersion.indexOf('/');
    return slash < 0
      ? { group: '', version: apiVersion, resource }
      : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), resource };
  }

  private check(namespace: string): void {
    if (this.forbidden.includes(namespace)) {
      throw new CelPortError(`configmaps is forbidden in namespace "${namespace}"`, 'Forbidden');
    }
  }

  private matching(target: CelResourceTarget): JsonObject[] {
    return this.objects
      .filter(
        (o) =>
          o.apiVersion === target.apiVersion &&
          o.resource === target.resource &&
          (target.namespace === '' || (o.object.metadata as JsonObject | undefined)?.namespace === target.namespace),
      )
      .map((o) => o.object);
  }

  private kindOf(target: CelResourceTarget): string {
    const entry = Object.entries(this.kinds).find(
      ([key, plural]) => plural === target.resource && key.startsWith(`${target.apiVersion}/`),
    );
    return entry ? entry[0].slice(target.apiVersion.length + 1) : '';
  }
}

/** GlobalContextEntry data by name; a projection is looked up as `name/projection`. */
export class FakeGlobalContextPort implements CelGlobalContextPort {
  readonly reads: { name: string; projection: string }[] = [];

  constructor(private readonly entries: Readonly<Record<string, JsonValue>> = {}) {}

  get(name: string, projection: string): JsonValue | undefined {
    this.reads.push({ name, projection });
    const key = projection ? `${name}/${projection}` : name;
    return Object.hasOwn(this.entries, key) ? this.entries[key] : undefined;
  }
}

/** Image data by reference; an unknown image fails as a registry would. */
export class FakeImageDataPort implements CelImageDataPort {
  readonly fetched: string[] = [];

  constructor(private readonly images: Readonly<Record<string, JsonObject>> = {}) {}

  get(reference: string): JsonObject {
    this.fetched.push(reference);
    const data = this.images[reference];
    if (!data) throw new Error(`GET https://registry.test/v2/${reference}/manifests: MANIFEST_UNKNOWN`);
    return data;
  }
}

export interface FakeKyvernoPorts {
  readonly http: FakeHttpPort;
  readonly resources: FakeResourcePort;
  readonly globalContext: FakeGlobalContextPort;
  readonly imageData: FakeImageDataPort;
}

/** All four fakes, empty unless given. */
export function fakeKyvernoPorts(given: Partial<FakeKyvernoPorts> = {}): FakeKyvernoPorts {
  return {
    http: given.http ?? new FakeHttpPort(),
    resources: given.resources ?? new FakeResourcePort(),
    globalContext: given.globalContext ?? new FakeGlobalContextPort(),
    imageData: given.imageData ?? new FakeImageDataPort(),
  };
}
