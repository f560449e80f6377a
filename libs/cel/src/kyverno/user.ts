import type { Environment } from '@marcbachmann/cel-js';
import { namespaceFunction } from '../libraries/namespace';

export const SERVICE_ACCOUNT_TYPE = 'user.ServiceAccount';

/** What `parseServiceAccount` answers; both fields empty for a user that is not a service account. */
export class CelServiceAccount {
  constructor(
    readonly Namespace: string,
    readonly Name: string,
  ) {}
}

const PREFIX = 'system:serviceaccount:';

/** Kyverno's user library: `parseServiceAccount(username)` and `user.parseServiceAccount(username)`. */
export function registerUser(env: Environment): void {
  env.registerType(SERVICE_ACCOUNT_TYPE, {
    ctor: CelServiceAccount,
    fields: { Namespace: 'string', Name: 'string' },
  });
  env.registerFunction(`parseServiceAccount(string): ${SERVICE_ACCOUNT_TYPE}`, parseServiceAccount);
  namespaceFunction(env, `user.parseServiceAccount(string): ${SERVICE_ACCOUNT_TYPE}`, parseServiceAccount);
}

export function parseServiceAccount(username: string): CelServiceAccount {
  if (!username.startsWith(PREFIX)) return new CelServiceAccount('', '');
  const rest = username.slice(PREFIX.length);
  const colon = rest.indexOf(':');
  // The name keeps any further colons, as Kyverno splits at the first one only.
  return colon < 0 ? new CelServiceAccount('', '') : new CelServiceAccount(rest.slice(0, colon), rest.slice(colon + 1));
}
