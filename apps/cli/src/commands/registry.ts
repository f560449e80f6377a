import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { IvpolPorts } from '@edict/cel-policies';
import { DEFAULT_BLOCKED_CIDRS, EgressClient } from '@edict/egress';
import { blockedCidrsAllowing, parseDockerConfigJson, RegistryClient, type DockerConfig } from '@edict/registry';

/** Registry access for the CLI, and how to release it (pooled connections). */
export interface CliRegistry {
  ports: IvpolPorts;
  close(): void;
}

/** Builds the CLI's registry access; swapped in specs. */
export type CliRegistryFactory = () => CliRegistry;

/**
 * `--registry`: the CLI reads image registries for ImageValidatingPolicies, as Kyverno's CLI does
 * with local credentials: `$DOCKER_CONFIG/config.json` (else `~/.docker/config.json`) when present.
 * Every call goes through the egress guard (private and metadata addresses blocked unless
 * `EDICT_REGISTRY_ALLOWED_ADDRESSES` lets one through) and the registry client's size caps;
 * `EDICT_INSECURE_REGISTRIES` (host[:port] or *) allows plain HTTP. Secrets a policy names
 * (`credentials.secrets`) cannot be read without a cluster: local credentials stand in for them.
 */
export const cliRegistry: CliRegistryFactory = () => {
  const env = process.env;
  const allowed = list(env.EDICT_REGISTRY_ALLOWED_ADDRESSES);
  const egress = new EgressClient({
    blockedCidrs:
      allowed.length > 0 ? blockedCidrsAllowing(DEFAULT_BLOCKED_CIDRS, allowed) : [...DEFAULT_BLOCKED_CIDRS],
  });
  const client = new RegistryClient(egress, { insecureRegistries: list(env.EDICT_INSECURE_REGISTRIES) });
  const dockerConfigs = localDockerConfigs(env);
  return {
    ports: {
      oci: (access) =>
        client.oci({
          dockerConfigs,
          ...(access.allowInsecure ? { allowInsecure: true } : {}),
        }),
    },
    close: () => egress.close(),
  };
};

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

export function localDockerConfigs(env: NodeJS.ProcessEnv): DockerConfig[] {
  const file = join(env.DOCKER_CONFIG ?? join(homedir(), '.docker'), 'config.json');
  if (!existsSync(file)) return [];
  return [parseDockerConfigJson(readFileSync(file, 'utf8'), file)];
}
