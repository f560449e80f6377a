/** Subresources with their own kind (`resources/subresources.ts`): scale, eviction, binding, exec/attach/portforward/proxy, log, token. */
import { methodNotAllowed, pathNotFound } from '../../status';
import { sendText } from '../io';
import { patchBody, patchTypeOf } from './patch';
import { itemOf, type ResourceHandler } from './resource-request';

const scale: ResourceHandler = async (api, request) => {
  const { type } = request.route;
  const { namespace, name } = itemOf(request);
  const method = request.request.method;
  const options = { dryRun: request.dryRun, fieldManager: request.query.get('fieldManager') ?? undefined };
  if (method === 'GET') return request.send(200, api.subresources.getScale(type, namespace, name));
  if (method === 'PUT') {
    const body = (await request.body()) ?? null;
    const scaled = await api.subresources.writeScale(type, namespace, name, { body }, options, request.context);
    return request.send(200, scaled);
  }
  if (method === 'PATCH') {
    const patchType = patchTypeOf(request);
    const patch = await patchBody(request);
    const change = { patchType, patch };
    return request.send(
      200,
      await api.subresources.writeScale(type, namespace, name, change, options, request.context),
    );
  }
  throw methodNotAllowed();
};

const eviction: ResourceHandler = async (api, request) => {
  if (request.request.method !== 'POST') throw methodNotAllowed();
  const { namespace, name } = itemOf(request);
  const budgets = api.registry.find('policy', 'v1', 'poddisruptionbudgets');
  const body = (await request.body()) ?? null;
  const options = { dryRun: request.dryRun };
  const evicted = await api.subresources.evict(
    namespace!,
    name,
    body,
    options,
    request.context,
    request.route.type,
    budgets,
  );
  request.send(201, evicted);
};

const binding: ResourceHandler = async (api, request) => {
  if (request.request.method !== 'POST') throw methodNotAllowed();
  const { namespace, name } = itemOf(request);
  const body = (await request.body()) ?? null;
  const options = { dryRun: request.dryRun };
  request.send(201, await api.subresources.bind(request.route.type, namespace!, name, body, options, request.context));
};

/** A proxy is reached with any method; exec, attach and portforward with GET or POST. */
const PROXY_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

const connect: ResourceHandler = (api, request) => {
  const method = request.request.method ?? '';
  const allowed = request.route.subresource === 'proxy' ? PROXY_METHODS : ['GET', 'POST'];
  if (!allowed.includes(method)) throw methodNotAllowed();
  const { namespace, name } = itemOf(request);
  const { type, subresource } = request.route;
  return api.subresources.connect(type, namespace!, name, subresource!, request.query, request.context);
};

const log: ResourceHandler = (api, request) => {
  if (request.request.method !== 'GET') throw methodNotAllowed();
  const { namespace, name } = itemOf(request);
  sendText(request.response, 200, api.subresources.log(request.route.type, namespace!, name, request.query));
};

const token: ResourceHandler = async (api, request) => {
  if (request.request.method !== 'POST') throw methodNotAllowed();
  const { namespace, name } = itemOf(request);
  const body = (await request.body()) ?? null;
  const options = { dryRun: request.dryRun };
  const issued = await api.subresources.requestToken(
    request.route.type,
    namespace!,
    name,
    body,
    options,
    request.context,
  );
  request.send(201, issued);
};

const SUBRESOURCE_HANDLERS: Readonly<Record<string, ResourceHandler>> = {
  scale,
  eviction,
  exec: connect,
  attach: connect,
  portforward: connect,
  proxy: connect,
  binding,
  log,
  token,
};

export const subresource: ResourceHandler = (api, request) => {
  const handler = SUBRESOURCE_HANDLERS[request.route.subresource!];
  if (!handler) throw pathNotFound();
  return handler(api, request);
};
