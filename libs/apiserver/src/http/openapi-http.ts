/** Serving `/openapi/v2` (JSON or protobuf, as asked) and `/openapi/v3` (index and group versions, with ETags). */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResourceRegistry } from '../registry/registry';
import { pathNotFound } from '../status';
import { sendJson } from './io';
import { openApiV3Index, openApiV3Text } from './openapi';
import { openApiV2Json, openApiV2Protobuf } from './openapi-v2';

const V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
/** kube answers protobuf with this content type (the `@` spelled as a dot). */
const V2_PROTOBUF_CONTENT_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/** Answers an OpenAPI path; `false` when `path` is not one. */
export function serveOpenApi(
  registry: ResourceRegistry,
  path: string,
  request: IncomingMessage,
  response: ServerResponse,
): boolean {
  if (path === '/openapi/v2') {
    const accept = request.headers.accept ?? '';
    if (accept.includes(V2_PROTOBUF)) send(response, request, V2_PROTOBUF_CONTENT_TYPE, openApiV2Protobuf(registry));
    else send(response, request, 'application/json', Buffer.from(openApiV2Json(registry), 'utf8'));
    return true;
  }
  if (path === '/openapi/v3') {
    sendJson(response, 200, openApiV3Index(registry));
    return true;
  }
  const match = /^\/openapi\/v3\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(path);
  if (!match) return false;
  const [group, version] = match[1] ? ['', match[1]] : [match[2]!, match[3]!];
  if (!registry.hasGroupVersion(group, version)) throw pathNotFound();
  const { text, hash } = openApiV3Text(registry, group, version);
  send(response, request, 'application/json', Buffer.from(text, 'utf8'), hash);
  return true;
}

function send(
  response: ServerResponse,
  request: IncomingMessage,
  contentType: string,
  body: Buffer,
  etag?: string,
): void {
  const tag = etag ? `"${etag}"` : undefined;
  if (tag && request.headers['if-none-match'] === tag) {
    response.writeHead(304, { ETag: tag });
    response.end();
    return;
  }
  response.writeHead(200, {
    'Content-Type': contentType,
    'Cache-Control': 'no-cache, private',
    'Content-Length': body.length,
    ...(tag ? { ETag: tag } : {}),
  });
  response.end(body);
}
