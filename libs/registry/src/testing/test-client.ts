/**
 * A RegistryClient for tests against registries on this machine: the default egress block list
 * with 127.0.0.1 alone let through (other loopback addresses, ::1 and metadata endpoints stay
 * blocked), and plain HTTP to 127.0.0.1 registries without each call asking for allowInsecure.
 */
import { DEFAULT_BLOCKED_CIDRS, EgressClient, type EgressOptions } from '@edict/egress';
import { RegistryClient } from '../client/registry-client';
import { blockedCidrsAllowing } from '../registry-egress';
import type { RegistryOptions } from '../registry.options';

export interface TestRegistryClientOptions {
  readonly registry?: Partial<RegistryOptions>;
  readonly egress?: Partial<EgressOptions>;
}

/** The client and its egress client: `close()` ends pooled connections (call it in afterAll/afterEach). */
export function registryClientForTests(options: TestRegistryClientOptions = {}): RegistryClient & { close(): void } {
  const egress = new EgressClient({
    blockedCidrs: blockedCidrsAllowing(DEFAULT_BLOCKED_CIDRS, ['127.0.0.1']),
    ...options.egress,
  });
  const client = new RegistryClient(egress, { insecureRegistries: ['127.0.0.1'], ...options.registry });
  return Object.assign(client, { close: () => egress.close() });
}
