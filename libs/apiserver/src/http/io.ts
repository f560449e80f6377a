/** Reading request bodies and writing JSON responses the way kube-apiserver does. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonValue } from '@edict/foundation';
import { parse as parseYaml } from 'yaml';
import { ApiError, badRequest } from '../status';
import { decodeProtobuf, PROTOBUF_MEDIA_TYPE } from './protobuf';

export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES)
      throw new ApiError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The media type without parameters, lower-cased (`application/json`). */
export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Parses a JSON (or, for YAML media types, YAML) body; an empty body is `undefined`. */
export function parseBody(raw: Buffer, contentType: string): JsonValue | undefined {
  if (contentType === PROTOBUF_MEDIA_TYPE) return raw.length === 0 ? undefined : decodeProtobuf(raw);
  const text = raw.toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    if (contentType.includes('yaml')) return parseYaml(text) as JsonValue;
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    const detail = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw badRequest(`the request body could not be decoded: ${detail}`);
  }
}

export function sendJson(response: ServerResponse, code: number, body: JsonValue): void {
  const text = JSON.stringify(body);
  response.writeHead(code, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Content-Length': Buffer.byteLength(text),
  });
  response.end(text);
}

export function sendText(response: ServerResponse, code: number, text: string): void {
  response.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
}

export function sendError(response: ServerResponse, error: unknown): void {
  const apiError =
    error instanceof ApiError ? error : new ApiError(500, 'InternalError', `Internal error occurred: ${String(error)}`);
  sendJson(response, apiError.code, apiError.toStatus());
}
