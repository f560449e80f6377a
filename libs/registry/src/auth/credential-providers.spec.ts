import { describe, expect, it } from 'vitest';
import { RegistryCredentialsError } from '../registry-errors';
import { checkCredentialProviders } from './credential-providers';

describe('checkCredentialProviders', () => {
  it('accepts none and "default"', () => {
    expect(() => checkCredentialProviders(undefined)).not.toThrow();
    expect(() => checkCredentialProviders(['default'])).not.toThrow();
  });

  it('fails closed on cloud providers and unknown names, naming the entry', () => {
    expect(() => checkCredentialProviders(['default', 'amazon'])).toThrow(RegistryCredentialsError);
    expect(() => checkCredentialProviders(['default', 'amazon'])).toThrow(
      'imageRegistryCredentials.providers[1]: the "amazon" credential provider is not supported by Edict; use imageRegistryCredentials.secrets',
    );
    expect(() => checkCredentialProviders(['nope'])).toThrow(
      'imageRegistryCredentials.providers[0]: unknown credential provider "nope"',
    );
    expect(() => checkCredentialProviders('default')).toThrow('imageRegistryCredentials.providers: expected a list');
  });
});
