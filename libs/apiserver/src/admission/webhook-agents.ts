/**
 * Kept-alive HTTPS agents for webhook calls, one per endpoint, as kube-apiserver caches one client
 * (and its connection pool) per webhook client configuration: calls reuse TLS connections instead of
 * handshaking each time. An endpoint is the address connected to, the name the certificate must
 * carry and the trusted bundle; each new connection dials that address again, so a Service in
 * front of several replicas still spreads connections, and a connection its server closed is
 * dropped from the pool. The cache is bounded: the least recently used agent is closed past it.
 *
 * Idle connections are closed by this side after `idleTimeoutMs`. kube-apiserver talks HTTP/2 to
 * webhooks, where a stopping server's GOAWAY moves clients off a connection without losing a
 * request; over HTTP/1.1 a server closing an idle connection can meet a request already on its way
 * (a reset, a failed admission). A stopping replica closes every connection that carries a request
 * during its shutdown delay (`Connection: close`); closing idle ones here before that delay ends
 * (5 s by default) leaves none for the replica to close under a request.
 */
import { createHash } from 'node:crypto';
import { Agent } from 'node:https';

export interface WebhookEndpoint {
  /** `host:port` connected to. */
  readonly address: string;
  readonly serverName: string;
  readonly caBundle?: string;
}

/** Idle connections kept per endpoint (Go's default MaxIdleConnsPerHost is 2; kube raises it to 25 for its clients). */
const MAX_IDLE_PER_ENDPOINT = 25;
const DEFAULT_MAX_ENDPOINTS = 64;
/** Below the admission controller's default shutdown delay (5 s). */
export const DEFAULT_WEBHOOK_IDLE_TIMEOUT_MS = 4_000;

export interface WebhookAgentOptions {
  readonly maxEndpoints?: number;
  /** A pooled connection idle this long is closed (by this side). */
  readonly idleTimeoutMs?: number;
}

export class WebhookAgents {
  private readonly agents = new Map<string, Agent>();
  private readonly maxEndpoints: number;
  private readonly idleTimeoutMs: number;

  constructor(options: WebhookAgentOptions = {}) {
    this.maxEndpoints = options.maxEndpoints ?? DEFAULT_MAX_ENDPOINTS;
    this.idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_WEBHOOK_IDLE_TIMEOUT_MS;
    if (!Number.isInteger(this.maxEndpoints) || this.maxEndpoints < 1)
      throw new RangeError(`maxEndpoints must be a whole number >= 1, got ${this.maxEndpoints}`);
    if (!(this.idleTimeoutMs > 0)) throw new RangeError(`idleTimeoutMs must be positive, got ${this.idleTimeoutMs}`);
  }

  /** The agent for `endpoint`, created on first use. */
  agentFor(endpoint: WebhookEndpoint): Agent {
    const key = endpointKey(endpoint);
    let agent = this.agents.get(key);
    if (agent) {
      // Most recently used last: eviction takes the first.
      this.agents.delete(key);
    } else {
      // `timeout` closes a pooled connection once idle that long; a call in progress only has its own deadline.
      agent = new Agent({ keepAlive: true, maxFreeSockets: MAX_IDLE_PER_ENDPOINT, timeout: this.idleTimeoutMs });
      if (this.agents.size >= this.maxEndpoints) {
        const [oldestKey, oldest] = this.agents.entries().next().value as [string, Agent];
        this.agents.delete(oldestKey);
        oldest.destroy();
      }
    }
    this.agents.set(key, agent);
    return agent;
  }

  get size(): number {
    return this.agents.size;
  }

  /** Closes every pooled connection (the API server stopping). */
  destroy(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}

function endpointKey(endpoint: WebhookEndpoint): string {
  const bundle = endpoint.caBundle ? createHash('sha256').update(endpoint.caBundle).digest('hex') : '';
  return `${endpoint.address}|${endpoint.serverName}|${bundle}`;
}
