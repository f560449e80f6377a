import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { gracefulClose } from './graceful-close';

function answeringServer(): Server {
  return createServer((request, response) => response.end(`answer ${request.url}`));
}

async function connected(server: Server): Promise<Socket> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise((resolve) => socket.once('connect', resolve));
  return socket;
}

function closing(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * One kept-alive connection: the first request is answered, then the second is written and the
 * server closed in the same tick, so the request is in the server's socket buffer, not read yet.
 */
async function secondRequestAtClose(server: Server): Promise<{ answers: string[]; reset: boolean }> {
  const socket = await connected(server);
  let received = '';
  let reset = false;
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', (error: NodeJS.ErrnoException) => (reset = error.code === 'ECONNRESET'));
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString();
    if (received.includes('answer /first') && !received.includes('/second')) {
      socket.write('GET /second HTTP/1.1\r\nHost: test\r\n\r\n');
      server.close();
    }
  });
  socket.write('GET /first HTTP/1.1\r\nHost: test\r\n\r\n');
  await closed;
  return { answers: received.match(/answer \/(first|second)/g) ?? [], reset };
}

describe('gracefulClose', () => {
  let server: Server | undefined;
  afterEach(() => server?.closeAllConnections());

  it('answers a request that arrived before the close but was not read yet', async () => {
    server = answeringServer();
    gracefulClose(server, 60_000);
    expect(await secondRequestAtClose(server)).toEqual({ answers: ['answer /first', 'answer /second'], reset: false });
  });

  it("is needed: Node's own close resets that connection", async () => {
    server = answeringServer();
    expect(await secondRequestAtClose(server)).toEqual({ answers: ['answer /first'], reset: true });
  });

  it('cuts a connection that never sent a request once the grace is over', async () => {
    server = answeringServer();
    gracefulClose(server, 100);
    const silent = await connected(server);
    const ended = new Promise((resolve) => silent.once('close', resolve));
    await closing(server);
    await ended;
    expect(silent.destroyed).toBe(true);
  });

  it('closes a kept-alive connection that stays idle at once, not at the end of the grace', async () => {
    server = answeringServer();
    // A grace longer than the spec's timeout: only the idle close can end the wait in time.
    gracefulClose(server, 60_000);
    const socket = await connected(server);
    const answered = new Promise((resolve) => socket.once('data', resolve));
    socket.write('GET /only HTTP/1.1\r\nHost: test\r\n\r\n');
    await answered;
    const ended = new Promise((resolve) => socket.once('close', resolve));
    await closing(server);
    await ended;
    expect(server.listening).toBe(false);
  });
});
