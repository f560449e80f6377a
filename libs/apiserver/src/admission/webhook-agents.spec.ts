import { describe, expect, it } from 'vitest';
import { WebhookAgents } from './webhook-agents';

const endpoint = (address: string, caBundle?: string) => ({
  address,
  serverName: 'edict-svc.edict.svc',
  ...(caBundle ? { caBundle } : {}),
});

describe('WebhookAgents', () => {
  it('keeps one kept-alive agent per endpoint: address, server name and trusted bundle', () => {
    const agents = new WebhookAgents();
    const first = agents.agentFor(endpoint('127.0.0.1:1', 'ca-1'));
    expect(agents.agentFor(endpoint('127.0.0.1:1', 'ca-1'))).toBe(first);
    expect((first as unknown as { keepAlive: boolean }).keepAlive).toBe(true);
    expect(agents.agentFor(endpoint('127.0.0.1:1', 'ca-2'))).not.toBe(first);
    expect(agents.agentFor(endpoint('127.0.0.1:2', 'ca-1'))).not.toBe(first);
    expect(agents.agentFor({ ...endpoint('127.0.0.1:1', 'ca-1'), serverName: 'other' })).not.toBe(first);
    expect(agents.size).toBe(4);
    agents.destroy();
    expect(agents.size).toBe(0);
  });

  it('stays bounded, closing the least recently used agent', () => {
    const agents = new WebhookAgents({ maxEndpoints: 2 });
    const a = agents.agentFor(endpoint('127.0.0.1:1'));
    agents.agentFor(endpoint('127.0.0.1:2'));
    agents.agentFor(endpoint('127.0.0.1:1'));
    agents.agentFor(endpoint('127.0.0.1:3'));
    expect(agents.size).toBe(2);
    // :2 was the least recently used: :1 is still pooled, :2 comes back as a new agent.
    expect(agents.agentFor(endpoint('127.0.0.1:1'))).toBe(a);
    expect(() => new WebhookAgents({ maxEndpoints: 0 })).toThrow(/maxEndpoints/);
    expect(() => new WebhookAgents({ idleTimeoutMs: 0 })).toThrow(/idleTimeoutMs/);
  });
});
