/**
 * When each request reached the server: a review's deadline counts from there, not from when its
 * handler runs, so time spent waiting for the event loop, the body or a slot is part of it (the API
 * server's timeout started even earlier, when it sent the request).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';

const ARRIVED = new WeakMap<object, number>();

/** Stamps every request (performance.now()) as soon as its headers are read, before the body. */
export function stampArrival(instance: FastifyInstance): void {
  instance.addHook('onRequest', (request, _reply, done) => {
    ARRIVED.set(request.raw, performance.now());
    done();
  });
}

/** The request's arrival (performance.now()); now when it was not stamped (a test calling the handler). */
export function arrivalOf(request: FastifyRequest): number {
  return ARRIVED.get(request.raw) ?? performance.now();
}
