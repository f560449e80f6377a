/**
 * Registry credentials from `kubernetes.io/dockerconfigjson` (and legacy `dockercfg`) Secrets,
 * matched to a registry the way the kubelet's keyring does: the key's host (with `*` globs per
 * label) and port must match, and a path in the key must prefix the repository. The most specific
 * key wins. The caller reads the Secrets; this only parses them.
 */
import type { JsonObject, JsonValue } from '@edict/foundation';
import { RegistryCredentialsError } from '../registry-errors';
import { DOCKER_HUB } from '../reference/registry-reference';

export interface RegistryAuth {
  readonly username?: string;
  readonly password?: string;
  /** An OAuth2 refresh token, exchanged at the token endpoint. */
  readonly identityToken?: string;
  /** A bearer token used as it is. */
  readonly registryToken?: string;
}

export interface DockerConfig {
  /** Where the config came from, for messages (e.g. `Secret kyverno/regcred`). */
  readonly source: string;
  readonly auths: ReadonlyMap<string, RegistryAuth>;
}

/** The credentials chosen for a registry, with the key and config they came from. */
export interface MatchedAuth {
  readonly auth: RegistryAuth;
  readonly key: string;
  readonly source: string;
}

const DOCKER_HUB_KEY_HOSTS = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);
const MAX_CONFIG_CHARS = 1024 * 1024;

/** Parses `.dockerconfigjson` text (`{"auths": {...}}`); a bare map (`.dockercfg`) is accepted too. */
export function parseDockerConfigJson(text: string, source: string): DockerConfig {
  if (text.length > MAX_CONFIG_CHARS) throw new RegistryCredentialsError(`${source}: docker config is too large`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new RegistryCredentialsError(`${source}: docker config is not valid JSON: ${(error as Error).message}`);
  }
  if (!isObject(parsed)) throw new RegistryCredentialsError(`${source}: docker config must be a JSON object`);
  const entries = 'auths' in parsed ? parsed.auths : parsed;
  if (!isObject(entries)) throw new RegistryCredentialsError(`${source}: docker config "auths" must be an object`);
  const auths = new Map<string, RegistryAuth>();
  for (const [key, value] of Object.entries(entries)) {
    auths.set(key, parseEntry(value, `${source}: auths[${JSON.stringify(key)}]`));
  }
  return { source, auths };
}

/** Reads a dockerconfigjson or dockercfg Secret (as the API returns it: base64 `data`). */
export function dockerConfigFromSecret(secret: JsonObject): DockerConfig {
  const metadata = isObject(secret.metadata) ? secret.metadata : {};
  const source = `Secret ${String(metadata.namespace ?? '')}/${String(metadata.name ?? '')}`;
  const data = isObject(secret.data) ? secret.data : {};
  const encoded = data['.dockerconfigjson'] ?? data['.dockercfg'];
  if (typeof encoded !== 'string') {
    throw new RegistryCredentialsError(
      `${source}: not a docker config Secret (no data[".dockerconfigjson"] or data[".dockercfg"])`,
    );
  }
  return parseDockerConfigJson(Buffer.from(encoded, 'base64').toString('utf8'), source);
}

/** The best-matching credentials for a repository of a registry across the configs, in order. */
export function findRegistryAuth(
  configs: readonly DockerConfig[],
  registry: string,
  repository: string,
): MatchedAuth | undefined {
  let best: { match: MatchedAuth; rank: number } | undefined;
  for (const config of configs) {
    for (const [key, auth] of config.auths) {
      const rank = matchRank(key, registry, repository);
      if (rank !== undefined && (best === undefined || rank > best.rank)) {
        best = { match: { auth, key, source: config.source }, rank };
      }
    }
  }
  return best?.match;
}

/** undefined when the key does not apply; otherwise higher is more specific. */
function matchRank(key: string, registry: string, repository: string): number | undefined {
  const { host, path } = splitKey(key);
  const target = splitHostPort(registry);
  const keyed = splitHostPort(host);
  if (keyed.port !== target.port) return undefined;
  const dockerHubKey = DOCKER_HUB_KEY_HOSTS.has(keyed.host) && (path === '' || /^v[12]$/.test(path));
  if (dockerHubKey) return registry === DOCKER_HUB ? 1 : undefined;
  if (!hostMatches(keyed.host, target.host)) return undefined;
  if (path !== '' && repository !== path && !repository.startsWith(`${path}/`)) return undefined;
  const exact = keyed.host.includes('*') ? 0 : 1;
  return exact * 10_000 + path.length * 10 + 2;
}

/** Strips a scheme and splits `host[:port]` from a path (without slashes at either end). */
function splitKey(key: string): { host: string; path: string } {
  const bare = key.trim().replace(/^[a-z]+:\/\//i, '');
  const slash = bare.indexOf('/');
  if (slash === -1) return { host: bare.toLowerCase(), path: '' };
  return { host: bare.slice(0, slash).toLowerCase(), path: bare.slice(slash + 1).replace(/^\/+|\/+$/g, '') };
}

function splitHostPort(value: string): { host: string; port: string } {
  const match = /^(.*?)(?::(\d+))?$/.exec(value.toLowerCase())!;
  return { host: match[1], port: match[2] ?? '' };
}

/** `*` matches one whole label or part of one, never a dot. */
function hostMatches(pattern: string, host: string): boolean {
  const patternLabels = pattern.split('.');
  const hostLabels = host.split('.');
  if (patternLabels.length !== hostLabels.length) return false;
  return patternLabels.every((label, index) => globLabel(label, hostLabels[index]));
}

function globLabel(pattern: string, label: string): boolean {
  if (!pattern.includes('*')) return pattern === label;
  const expression = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^.]*');
  return new RegExp(`^${expression}$`).test(label);
}

function parseEntry(value: JsonValue | unknown, where: string): RegistryAuth {
  if (!isObject(value)) throw new RegistryCredentialsError(`${where}: must be an object`);
  const text = (field: string): string | undefined => {
    const raw = value[field];
    if (raw === undefined || raw === null || raw === '') return undefined;
    if (typeof raw !== 'string') throw new RegistryCredentialsError(`${where}.${field}: must be a string`);
    return raw;
  };
  let username = text('username');
  let password = text('password');
  const auth = text('auth');
  if (auth !== undefined) {
    const decoded = Buffer.from(auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon === -1) throw new RegistryCredentialsError(`${where}.auth: must be base64 of "username:password"`);
    username = decoded.slice(0, colon);
    password = decoded.slice(colon + 1);
  }
  const identityToken = text('identitytoken');
  const registryToken = text('registrytoken');
  return {
    ...(username !== undefined ? { username } : {}),
    ...(password !== undefined ? { password } : {}),
    ...(identityToken !== undefined ? { identityToken } : {}),
    ...(registryToken !== undefined ? { registryToken } : {}),
  };
}

function isObject(value: unknown): value is Record<string, unknown> & JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
