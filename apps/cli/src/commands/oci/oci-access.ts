/**
 * The registry access of `edict oci push|pull`: the reference is the user's own, so loopback is
 * reachable (a local registry), while the metadata endpoints of cloud providers stay blocked. HTTPS
 * by default; plain HTTP as a fallback for loopback registries only (as go-containerregistry, and
 * so Kyverno's CLI, does for localhost and 127.0.0.1), or for any registry with `--insecure`, which
 * also skips TLS verification. Credentials come from the local docker config, as Kyverno's keychain
 * reads them. Every answer is capped by the registry client.
 */
import { isIP } from 'node:net';
import { DEFAULT_BLOCKED_CIDRS, EgressClient } from '@edict/egress';
import { parseRegistryReference, RegistryClient, type OciClient, type RegistryReference } from '@edict/registry';
import { localDockerConfigs } from '../registry';

/** Loopback is the one range of Edict's default block list the CLI lets through. */
const LOOPBACK = new Set(['127.0.0.0/8', '::1/128']);
const REGISTRY_TIMEOUT_MS = 30_000;

export interface OciTarget {
  /** `registry/repository`, as the OCI client takes it. */
  readonly repo: string;
  /** The tag (default `latest`) or digest. */
  readonly identifier: string;
  /** The full name Kyverno prints (`ref.Name()`): `registry/repository:tag` or `@digest`. */
  readonly name: string;
  readonly reference: RegistryReference;
}

export function ociTarget(image: string): OciTarget {
  const reference = parseRegistryReference(image);
  const repo = `${reference.registry}/${reference.repository}`;
  const separator = reference.digest ? '@' : ':';
  return { repo, identifier: reference.identifier, name: `${repo}${separator}${reference.identifier}`, reference };
}

export interface OciSession {
  readonly client: OciClient;
  close(): void;
}

/** Builds the OCI client for one command; swapped in specs. */
export type OciSessionFactory = (target: OciTarget, insecure: boolean) => OciSession;

export const ociSession: OciSessionFactory = (target, insecure) => {
  const egress = new EgressClient({
    blockedCidrs: DEFAULT_BLOCKED_CIDRS.filter((cidr) => !LOOPBACK.has(cidr)),
    timeoutMs: REGISTRY_TIMEOUT_MS,
  });
  const registry = new RegistryClient(egress, { timeoutMs: REGISTRY_TIMEOUT_MS });
  const client = registry.oci({
    dockerConfigs: localDockerConfigs(process.env),
    allowInsecure: insecure || isLoopbackHost(target.reference.host),
  });
  return { client, close: () => egress.close() };
};

/** `localhost`, 127.0.0.0/8 or ::1, with or without a port. */
export function isLoopbackHost(host: string): boolean {
  const name = (/^\[([^\]]+)\]/.exec(host)?.[1] ?? host.replace(/:\d+$/, '')).toLowerCase();
  if (name === 'localhost') return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  return isIP(name) === 6 && /^(0{0,4}:){2,7}0{0,3}1$|^::1$/.test(name);
}
