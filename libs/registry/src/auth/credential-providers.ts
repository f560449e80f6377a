/**
 * `imageRegistryCredentials.providers`: Kyverno's cloud keychains (amazon, azure, google, github)
 * read ambient cloud credentials, which Edict does not have. `default` (the controller's own docker
 * config, empty in a pod) adds nothing. Anything else fails closed, naming the provider.
 */
import { RegistryCredentialsError } from '../registry-errors';

const KNOWN = new Set(['default', 'amazon', 'azure', 'google', 'github']);

export function checkCredentialProviders(providers: unknown): void {
  if (providers === undefined || providers === null) return;
  if (!Array.isArray(providers)) {
    throw new RegistryCredentialsError('imageRegistryCredentials.providers: expected a list');
  }
  providers.forEach((provider, index) => {
    if (provider === 'default') return;
    const where = `imageRegistryCredentials.providers[${index}]`;
    if (typeof provider === 'string' && KNOWN.has(provider)) {
      throw new RegistryCredentialsError(
        `${where}: the "${provider}" credential provider is not supported by Edict; use imageRegistryCredentials.secrets`,
      );
    }
    throw new RegistryCredentialsError(`${where}: unknown credential provider ${JSON.stringify(provider)}`);
  });
}
