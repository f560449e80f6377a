/**
 * Fault injection for tests: fail matching requests with a chosen status, or hold every request
 * (as an unresponsive apiserver would) until resumed. Kept generic so any lib's tests can use it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../status';
import { sendError } from './io';

export interface FailureSpec {
  /** HTTP method to match (any when unset). */
  readonly method?: string;
  /** Request path prefix to match, e.g. `/api/v1/namespaces/default/configmaps` (any when unset). */
  readonly pathPrefix?: string;
  /** `true` matches only watch requests, `false` only non-watch requests (any when unset). */
  readonly watch?: boolean;
  /** Status code to answer (default 500). */
  readonly status?: number;
  /** How many matching requests fail (default 1). */
  readonly count?: number;
  readonly reason?: string;
  readonly message?: string;
}

interface PendingFailure extends FailureSpec {
  remaining: number;
}

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Expired',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

export class FaultInjector {
  private failures: PendingFailure[] = [];
  private held: Promise<void> | undefined;
  private release: (() => void) | undefined;
  /** Requests answered with an injected failure so far. */
  injected = 0;

  /** The next `count` requests matching the spec answer `status` with a kube Status body. */
  failNext(spec: FailureSpec = {}): void {
    this.failures.push({ ...spec, remaining: spec.count ?? 1 });
  }

  /** Holds every request (including new watches) until `resume()`; open watch streams keep running. */
  pause(): void {
    if (this.held) return;
    this.held = new Promise((resolve) => (this.release = resolve));
  }

  resume(): void {
    const release = this.release;
    this.held = undefined;
    this.release = undefined;
    release?.();
  }

  get paused(): boolean {
    return this.held !== undefined;
  }

  /** Drops pending failures and resumes held requests. */
  clear(): void {
    this.failures = [];
    this.resume();
  }

  /** Called by the server first for each request; `true` when the request has been answered here. */
  async intercept(request: IncomingMessage, response: ServerResponse): Promise<boolean> {
    while (this.held) await this.held;
    if (response.destroyed) return true;
    const url = new URL(request.url ?? '/', 'http://localhost');
    const isWatch = ['true', '1'].includes(url.searchParams.get('watch') ?? '');
    const failure = this.failures.find(
      (f) =>
        (f.method === undefined || f.method.toUpperCase() === request.method) &&
        (f.pathPrefix === undefined || url.pathname.startsWith(f.pathPrefix)) &&
        (f.watch === undefined || f.watch === isWatch),
    );
    if (!failure) return false;
    failure.remaining -= 1;
    if (failure.remaining <= 0) this.failures.splice(this.failures.indexOf(failure), 1);
    this.injected += 1;
    const status = failure.status ?? 500;
    const reason = failure.reason ?? REASONS[status] ?? 'InternalError';
    sendError(response, new ApiError(status, reason, failure.message ?? `injected fault: ${reason}`));
    return true;
  }
}
