/** Test helpers: a started server per test, JSON requests, and a watch-stream reader. */
import type { JsonObject } from '@edict/foundation';
import { InMemoryApiServer, type InMemoryApiServerOptions } from '../api-server';

export interface Running {
  readonly server: InMemoryApiServer;
  readonly url: string;
  request(
    method: string,
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<{ status: number; body: JsonObject }>;
}

export async function startServer(options: InMemoryApiServerOptions = {}): Promise<Running> {
  const server = new InMemoryApiServer(options);
  const { url } = await server.start({ host: '127.0.0.1', port: 0 });
  return {
    server,
    url,
    async request(method, path, body, contentType = 'application/json') {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: body === undefined ? {} : { 'Content-Type': contentType },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? (JSON.parse(text) as JsonObject) : {} };
    },
  };
}

export interface WatchEvent {
  readonly type: string;
  readonly object: JsonObject;
}

/** Opens a watch (with the request headers given) and collects events; `waitFor(n)` waits for n of them (or the stream's end). */
export async function openWatch(
  url: string,
  headers: Record<string, string> = {},
): Promise<{
  status: number;
  events: WatchEvent[];
  ended: Promise<void>;
  waitFor(count: number, timeoutMs?: number): Promise<WatchEvent[]>;
  close(): void;
}> {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal, headers });
  const events: WatchEvent[] = [];
  const waiters: Array<() => void> = [];
  let done = false;
  const ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let index: number;
        while ((index = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, index);
          buffer = buffer.slice(index + 1);
          if (line.trim()) events.push(JSON.parse(line) as WatchEvent);
        }
        waiters.splice(0).forEach((wake) => wake());
      }
    } catch {
      // aborted
    } finally {
      done = true;
      waiters.splice(0).forEach((wake) => wake());
    }
  })();
  return {
    status: response.status,
    events,
    ended,
    async waitFor(count, timeoutMs = 3000) {
      const deadline = Date.now() + timeoutMs;
      while (events.length < count && !done && Date.now() < deadline) {
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return events;
    },
    close: () => controller.abort(),
  };
}

/** Reads a dotted path out of a JSON value (tests only): `dig(obj, 'spec.template.spec.containers')`. */
export function dig<T = unknown>(value: unknown, path: string): T {
  let node = value;
  for (const segment of path.split('.'))
    node = node && typeof node === 'object' ? (node as Record<string, unknown>)[segment] : undefined;
  return node as T;
}
