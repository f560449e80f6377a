/**
 * Counts and times the requests the webhook handlers answer (Kyverno's `WithMetrics` handler wrapper):
 * every POST route, answered or failed; the probes, `/metrics` and the admin GETs are not counted.
 */
import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { finalize, type Observable } from 'rxjs';
import { CoreMetrics } from './core-metrics';

@Injectable()
export class HttpMetricsInterceptor implements NestInterceptor {
  constructor(private readonly metrics: CoreMetrics) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (request.method !== 'POST') return next.handle();
    const start = performance.now();
    return next
      .handle()
      .pipe(
        finalize(() => this.metrics.recordHttpRequest(request.method, request.url, (performance.now() - start) / 1000)),
      );
  }
}
