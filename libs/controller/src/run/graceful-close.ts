/**
 * A server's close made safe for a webhook that must not fail the requests sent to it:
 *  - Node's `close()` destroys every kept-alive connection it counts idle, and one whose next
 *    request sits unread in the socket buffer counts idle: its client sees a reset, for the API
 *    server a failed admission. Under load the close often runs before the poll phase that would
 *    read it. So the idle close waits two event-loop turns: at least one poll phase reads what
 *    already arrived, and those requests are answered like any in flight. Only the HTTP/1.1 race
 *    of a request sent after that remains.
 *  - Once closing, Node times out no connection that has not sent a request (nor, over TLS, one
 *    still in its handshake), so one silent client (a TCP probe, a half-open connection) would hold
 *    the close, and the shutdown after it, until the pod is killed. `closeWithin` cuts every
 *    connection still open once its grace is over.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface GracefulClose {
  /**
   * Waits for `closing` (the server's close), destroying the connections still open after
   * `graceMs`. Call it once the requests in flight are answered, or with a grace that covers them.
   */
  closeWithin(closing: Promise<unknown>, graceMs: number): Promise<void>;
}

export function gracefulClose(server: Server): GracefulClose {
  const closeIdle = server.closeIdleConnections.bind(server);
  server.closeIdleConnections = () => setImmediate(() => setImmediate(closeIdle));
  // Every TCP connection, TLS handshakes included (the HTTP server's own list starts after them).
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return {
    async closeWithin(closing, graceMs) {
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), graceMs)));
      const closed = await Promise.race([closing.then(() => true), graceOver]);
      clearTimeout(timer);
      if (!closed) for (const socket of sockets) socket.destroy();
      await closing;
    },
  };
}
