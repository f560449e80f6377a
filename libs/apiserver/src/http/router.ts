/**
 * The resource router: a request's scope (collection or object) and method give its verb, as in
 * kube-apiserver's installer, and each verb has one handler (`handlers/<verb>.ts`). A verb the type
 * does not serve answers 405; subresources with a kind of their own go to `handlers/subresources.ts`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonValue } from '@edict/foundation';
import type { AdmissionRequestContext } from '../admission/types';
import type { ResourceType } from '../registry/resource-type';
import type { UpdateSubresource } from '../resources/prepare';
import { isReviewType } from '../resources/reviews';
import { methodNotAllowed, pathNotFound } from '../status';
import { apply } from './handlers/apply';
import { create } from './handlers/create';
import { deleteObject } from './handlers/delete';
import { deleteCollection } from './handlers/deletecollection';
import { get } from './handlers/get';
import { list } from './handlers/list';
import { isApplyPatch, patch } from './handlers/patch';
import type { ApiParts, ResourceHandler, ResourceRequest } from './handlers/resource-request';
import { review } from './handlers/review';
import { subresource as subresourceHandler } from './handlers/subresources';
import { update } from './handlers/update';
import { watch } from './handlers/watch';
import { mediaType, parseBody, readBody, sendJson } from './io';
import { warningHeader, requestUser } from './request-context';
import { noteDuplicates } from './request-fields';
import type { ResourceRoute } from './route';

type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** Methods on a collection and on one object, as verbs. */
const COLLECTION_VERBS: Readonly<Record<string, Verb>> = { GET: 'list', POST: 'create', DELETE: 'deletecollection' };
const OBJECT_VERBS: Readonly<Record<string, Verb>> = { GET: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

const HANDLERS: Readonly<Record<Verb, ResourceHandler>> = {
  get,
  list,
  watch,
  create,
  update,
  patch,
  delete: deleteObject,
  deletecollection: deleteCollection,
};

/** Subresources written as their parent (the parent's own kind): the object verbs serve them. */
const UPDATE_SUBRESOURCES: readonly string[] = [
  'status',
  'ephemeralcontainers',
  'approval',
  'resize',
] satisfies UpdateSubresource[];

export class ResourceRouter {
  constructor(private readonly api: ApiParts) {}

  async serve(route: ResourceRoute, request: IncomingMessage, query: URLSearchParams, response: ServerResponse) {
    const { type, subresource } = route;
    if (subresource !== undefined && !type.subresources.includes(subresource)) throw pathNotFound();
    const resourceRequest = this.resourceRequest(route, request, query, response);
    // kube warns on every request to a deprecated custom resource version.
    if (type.deprecationWarning) resourceRequest.context.warnings.push(type.deprecationWarning);
    try {
      await this.handlerFor(resourceRequest)(this.api, resourceRequest);
    } catch (error) {
      // Warnings travel with failures too (a webhook may warn and deny).
      const { warnings } = resourceRequest.context;
      if (warnings.length > 0 && !response.headersSent) response.setHeader('Warning', warningHeader(warnings));
      throw error;
    }
  }

  private handlerFor(request: ResourceRequest): ResourceHandler {
    const { type, namespace, name, subresource } = request.route;
    const method = request.request.method ?? 'GET';
    const watching = isWatch(request.query);
    const collection = name === undefined;
    if (subresource === undefined) checkVerb(type, verbOf(method, collection, watching));
    if (collection) {
      if (method === 'POST' && isReviewType(type)) return review;
      const verb = verbOf(method, true, watching);
      if (!verb) throw methodNotAllowed();
      return HANDLERS[verb];
    }
    if (type.namespaced && namespace === undefined) throw pathNotFound();
    if (subresource !== undefined && !UPDATE_SUBRESOURCES.includes(subresource)) return subresourceHandler;
    const verb = verbOf(method, false, watching);
    if (!verb || (verb === 'delete' && subresource !== undefined)) throw methodNotAllowed();
    if (verb === 'patch' && isApplyPatch(request)) return apply;
    return HANDLERS[verb];
  }

  private resourceRequest(
    route: ResourceRoute,
    request: IncomingMessage,
    query: URLSearchParams,
    response: ServerResponse,
  ): ResourceRequest {
    const context: AdmissionRequestContext = {
      userInfo: requestUser(request),
      warnings: [],
      userAgent: request.headers['user-agent'],
    };
    const contentType = mediaType(request.headers['content-type']);
    const duplicates: string[] = [];
    return {
      route,
      request,
      response,
      query,
      context,
      dryRun: query.getAll('dryRun').includes('All'),
      contentType,
      duplicates,
      async body(): Promise<JsonValue | undefined> {
        const raw = await readBody(request);
        const parsed = parseBody(raw, contentType);
        noteDuplicates(raw, contentType, query, duplicates);
        return parsed;
      },
      listOptions: () => ({
        labelSelector: query.get('labelSelector') ?? undefined,
        fieldSelector: query.get('fieldSelector') ?? undefined,
        limit: query.has('limit') ? Number(query.get('limit')) : undefined,
        continue: query.get('continue') ?? undefined,
      }),
      send(code, body) {
        if (context.warnings.length > 0) response.setHeader('Warning', warningHeader(context.warnings));
        sendJson(response, code, body);
      },
    };
  }
}

function verbOf(method: string, collection: boolean, watching: boolean): Verb | undefined {
  const verb = (collection ? COLLECTION_VERBS : OBJECT_VERBS)[method];
  return method === 'GET' && watching ? 'watch' : verb;
}

/** A verb the type does not serve answers 405, as kube-apiserver does. */
function checkVerb(type: ResourceType, verb: Verb | undefined): void {
  if (verb !== undefined && !type.verbs.includes(verb)) throw methodNotAllowed();
}

function isWatch(query: URLSearchParams): boolean {
  const value = query.get('watch');
  return value === 'true' || value === '1';
}
