/**
 * A record of the HTTP requests the server answered: who (the request's user, impersonation
 * included), what (method, path), when (arrival, answer) and how it ended (status). Tests use it to see from the API
 * server's side which client wrote what, e.g. that only the leader replica writes Secrets.
 * Off until `start()`, and bounded, so a long-running local server does not grow with it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestUser } from './request-context';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface RecordedRequest {
  readonly method: string;
  /** The URL path without the query, e.g. `/api/v1/namespaces/edict/secrets`. */
  readonly path: string;
  readonly user: string;
  readonly watch: boolean;
  readonly dryRun: boolean;
  /** The answer's status code (set when the answer ended). */
  readonly status: number;
  /** When the request arrived and when its answer ended, in ms on this process's `performance.now()` clock. */
  readonly receivedAt: number;
  readonly answeredAt: number;
}

export interface RequestFilter {
  readonly method?: string;
  readonly pathPrefix?: string;
  readonly user?: string;
  /** Only answers below 400 (default false: failed requests too). */
  readonly succeeded?: boolean;
}

export class RequestLog {
  private readonly entries: RecordedRequest[] = [];
  private recording = false;

  /** Keeps at most `limit` requests (the oldest are dropped). */
  constructor(private readonly limit = 10_000) {}

  /** Starts recording requests answered from now on. */
  start(): void {
    this.recording = true;
  }

  stop(): void {
    this.recording = false;
  }

  clear(): void {
    this.entries.length = 0;
  }

  /** Called by the server for each request; records it once its answer ends. */
  observe(request: IncomingMessage, response: ServerResponse): void {
    if (!this.recording) return;
    const url = new URL(request.url ?? '/', 'http://localhost');
    const base = {
      receivedAt: performance.now(),
      method: request.method ?? 'GET',
      path: url.pathname,
      user: requestUser(request).username,
      watch: ['true', '1'].includes(url.searchParams.get('watch') ?? ''),
      dryRun: url.searchParams.getAll('dryRun').includes('All'),
    };
    let done = false;
    const record = (): void => {
      if (done || !this.recording) return;
      done = true;
      this.entries.push({ ...base, status: response.statusCode, answeredAt: performance.now() });
      if (this.entries.length > this.limit) this.entries.splice(0, this.entries.length - this.limit);
    };
    response.once('finish', record);
    response.once('close', record);
  }

  /** Every recorded request matching `filter`, oldest first. */
  requests(filter: RequestFilter = {}): RecordedRequest[] {
    return this.entries.filter(
      (entry) =>
        (filter.method === undefined || entry.method === filter.method.toUpperCase()) &&
        (filter.pathPrefix === undefined || entry.path.startsWith(filter.pathPrefix)) &&
        (filter.user === undefined || entry.user === filter.user) &&
        (!filter.succeeded || entry.status < 400),
    );
  }

  /** Recorded writes (POST, PUT, PATCH, DELETE; not dry runs) matching `filter`. */
  writes(filter: Omit<RequestFilter, 'method'> = {}): RecordedRequest[] {
    return this.requests(filter).filter((entry) => WRITE_METHODS.has(entry.method) && !entry.dryRun);
  }

  /** The users who made the writes matching `filter`. */
  writers(filter: Omit<RequestFilter, 'method'> = {}): string[] {
    return [...new Set(this.writes(filter).map((entry) => entry.user))];
  }
}
