/**
 * Node's `server.close()` (and Fastify's close) destroys every connection the server counts idle,
 * and a kept-alive connection whose next request sits unread in the socket buffer counts idle: its
 * client sees a reset, which for the API server is a failed admission. Under load the event loop
 * often runs the close before the poll phase that would read such a request. Deferring the idle
 * close by two event-loop turns lets at least one poll phase read what already arrived; those
 * requests are then in flight, answered (with `Connection: close` once the server is closing) and
 * waited for like any other. Only the HTTP/1.1 race of a request sent after that remains.
 */
import type { Server } from 'node:http';

export function readQueuedRequestsBeforeIdleClose(server: Pick<Server, 'closeIdleConnections'>): void {
  const closeIdle = server.closeIdleConnections.bind(server);
  server.closeIdleConnections = () => setImmediate(() => setImmediate(closeIdle));
}
