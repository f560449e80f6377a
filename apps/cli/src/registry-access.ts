/**
 * The registry the CLI verifies images against, as Kyverno's CLI reads registries for verifyImages
 * rules: anonymous pulls over HTTPS (plain HTTP for the hosts EDICT_INSECURE_REGISTRIES lists, e.g.
 * a local registry on 127.0.0.1:5000), and loopback allowed (the CLI runs on the user's machine, not
 * inside a cluster). Entries' `imageRegistryCredentials.secrets` name cluster Secrets, which the CLI
 * does not have: such entries fail closed.
 */
import type { EngineFactory } from '@edict/kyverno-test';
import { Engine, VerificationCache, type ImageVerificationLoader, type OciReader } from '@edict/engine';
import { EgressClient } from '@edict/egress';
import { RegistryClient, checkCredentialProviders } from '@edict/registry';

const REGISTRY_TIMEOUT_MS = 30_000;

export function cliImageVerification(env: NodeJS.ProcessEnv = process.env): ImageVerificationLoader {
  const egress = new EgressClient({ blockedCidrs: [], timeoutMs: REGISTRY_TIMEOUT_MS });
  const insecureRegistries = (env['EDICT_INSECURE_REGISTRIES'] ?? '')
    .split(',')
    .map((host) => host.trim())
    .filter(Boolean);
  const registry = new RegistryClient(egress, { timeoutMs: REGISTRY_TIMEOUT_MS, insecureRegistries });
  return {
    oci: (access) => {
      checkCredentialProviders(access.providers ? [...access.providers] : undefined);
      if (access.secrets && access.secrets.length > 0) {
        throw new Error(
          `imageRegistryCredentials.secrets (${access.secrets.join(', ')}) name cluster Secrets, which the CLI cannot read`,
        );
      }
      return registry.oci({ allowInsecure: access.allowInsecure === true }) as unknown as OciReader;
    },
    cache: new VerificationCache(1000, 60 * 60 * 1000),
  };
}

/** The engine factory of the CLI: the test's loaders plus registry access for verifyImages rules. */
export function cliEngineFactory(imageVerification: ImageVerificationLoader): EngineFactory {
  return (dependencies) =>
    new Engine({
      ...dependencies,
      loaders: dependencies.loaders ? { ...dependencies.loaders, imageVerification } : undefined,
    });
}
