/**
 * A stand-in for a Service's cluster IP in front of webhook replicas, as kube-proxy and the
 * endpoints controller make one: each incoming TCP connection goes whole to one ready endpoint
 * (round robin here, where iptables picks at random), bytes piped both ways, TLS untouched.
 * Readiness follows the kubelet: a probe (HTTPS GET, certificate not checked, never two at once)
 * that answers 2xx makes the endpoint ready; it leaves the rotation after `failureThreshold` failed
 * probes in a row, or at once when nothing listens any more (the kubelet learns of a dead container
 * from the runtime, not from probes). `remove` is the pod's deletion: its endpoint goes whatever its
 * probes say. Like kube-proxy, a connection sent to an endpoint that refuses it is not retried
 * elsewhere: the client sees it reset.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface BalancerOptions {
  /** How often each endpoint is probed (the kubelet's periodSeconds). */
  probeIntervalMs: number;
  /** The readiness path. */
  probePath: string;
  /** A probe not answered within this counts as failed. */
  probeTimeoutMs: number;
  /** Failed probes in a row that take a live endpoint out of the rotation. */
  failureThreshold: number;
}

type ProbeResult = 'passed' | 'failed' | 'refused';

interface Endpoint {
  port: number;
  ready: boolean;
  failuresInARow: number;
  probing: boolean;
}

export class ServiceBalancer {
  private readonly endpoints = new Map<number, Endpoint>();
  private readonly sockets = new Set<Socket>();
  private server: Server | undefined;
  private probeTimer: NodeJS.Timeout | undefined;
  private next = 0;
  /** Connections that found no ready endpoint (closed at once, as a Service without endpoints rejects). */
  noEndpoint = 0;
  /** Times a listening endpoint left the rotation because its probes failed (a slow, not a dead, replica). */
  probeEjections = 0;
  /** Endpoint-side connection errors by `port code` (a reset or refusal the client saw as a reset). */
  readonly upstreamErrors = new Map<string, number>();

  constructor(private readonly options: BalancerOptions) {}

  async start(): Promise<number> {
    this.server = createServer((socket) => this.forward(socket));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.probeTimer = setInterval(() => void this.probeAll(), this.options.probeIntervalMs);
    return (this.server.address() as AddressInfo).port;
  }

  /** Adds an endpoint; it takes connections once a probe finds it ready. */
  add(port: number): void {
    const endpoint = { port, ready: false, failuresInARow: 0, probing: false };
    this.endpoints.set(port, endpoint);
    void this.probe(endpoint);
  }

  /** The pod is being deleted: its endpoint leaves the Service. */
  remove(port: number): void {
    this.endpoints.delete(port);
  }

  readyPorts(): number[] {
    return [...this.endpoints.values()].filter((endpoint) => endpoint.ready).map((endpoint) => endpoint.port);
  }

  async stop(): Promise<void> {
    clearInterval(this.probeTimer);
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private forward(client: Socket): void {
    const ready = this.readyPorts();
    if (ready.length === 0) {
      this.noEndpoint++;
      client.destroy();
      return;
    }
    const port = ready[this.next++ % ready.length]!;
    const upstream = connect(port, '127.0.0.1');
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    }
    // A reset on either side resets the other: the client sees what it would see from the pod.
    client.on('error', () => upstream.destroy());
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      const key = `${port} ${error.code ?? error.message}`;
      this.upstreamErrors.set(key, (this.upstreamErrors.get(key) ?? 0) + 1);
      client.resetAndDestroy();
    });
    client.pipe(upstream);
    upstream.pipe(client);
  }

  private async probeAll(): Promise<void> {
    await Promise.all([...this.endpoints.values()].map((endpoint) => this.probe(endpoint)));
  }

  private async probe(endpoint: Endpoint): Promise<void> {
    if (endpoint.probing) return;
    endpoint.probing = true;
    const result = await this.probeOnce(endpoint.port);
    endpoint.probing = false;
    if (result === 'passed') {
      endpoint.ready = true;
      endpoint.failuresInARow = 0;
    } else if (result === 'refused') {
      endpoint.ready = false;
    } else if (++endpoint.failuresInARow >= this.options.failureThreshold && endpoint.ready) {
      endpoint.ready = false;
      this.probeEjections++;
    }
  }

  private probeOnce(port: number): Promise<ProbeResult> {
    return new Promise<ProbeResult>((resolve) => {
      const request = httpsRequest(
        {
          host: '127.0.0.1',
          port,
          path: this.options.probePath,
          rejectUnauthorized: false,
          agent: false,
          timeout: this.options.probeTimeoutMs,
        },
        (response) => {
          response.resume();
          const status = response.statusCode ?? 0;
          resolve(status >= 200 && status < 300 ? 'passed' : 'failed');
        },
      );
      request.on('timeout', () => request.destroy());
      request.on('error', (error: NodeJS.ErrnoException) =>
        resolve(error.code === 'ECONNREFUSED' ? 'refused' : 'failed'),
      );
      request.end();
    });
  }
}
