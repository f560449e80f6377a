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
 *    the close, and the shutdown after it, until the pod is killed. The connections still open
 *    `graceMs` after the close began are cut.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export function gracefulClose(server: Server, graceMs: number): void {
  const closeIdle = server.closeIdleConnections.bind(server);
  server.closeIdleConnections = () => setImmediate(() => setImmediate(closeIdle));
  // Every TCP connection, TLS handshakes included (the HTTP server's own list starts after them).
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const close = server.close.bind(server);
  server.close = (callback?: (error?: Error) => void) => {
    const cut = setTimeout(() => {
      for (const socket of sockets) socket.destroy();
    }, graceMs);
    server.once('close', () => clearTimeout(cut));
    return close(callback);
  };
}
