import type { Environment } from '@marcbachmann/cel-js';
import { celError } from './errors';

/** A parsed URL (Kubernetes' CEL `kubernetes.URL`). */
export class CelUrl {
  constructor(
    readonly scheme: string,
    readonly host: string,
    readonly hostname: string,
    readonly port: string,
    readonly escapedPath: string,
    readonly query: string,
  ) {}
}

const TYPE = 'kubernetes.URL';

/**
 * Kubernetes' CEL URL library: `url()`, `isURL()` and the getters. A URL must be absolute (with a
 * scheme) or an absolute path, as Kubernetes requires; parsing follows the WHATWG URL rules.
 */
export function registerUrl(env: Environment): void {
  env.registerType(TYPE, CelUrl);
  env.registerFunction(`url(string): ${TYPE}`, (text: string) => {
    const url = parseUrl(text);
    if (!url) throw celError(`URL parse error during conversion from string: ${text}`);
    return url;
  });
  env.registerFunction('isURL(string): bool', (text: string) => parseUrl(text) !== undefined);
  env.registerFunction(`${TYPE}.getScheme(): string`, (url: CelUrl) => url.scheme);
  env.registerFunction(`${TYPE}.getHost(): string`, (url: CelUrl) => url.host);
  env.registerFunction(`${TYPE}.getHostname(): string`, (url: CelUrl) => url.hostname);
  env.registerFunction(`${TYPE}.getPort(): string`, (url: CelUrl) => url.port);
  env.registerFunction(`${TYPE}.getEscapedPath(): string`, (url: CelUrl) => url.escapedPath);
  env.registerFunction(`${TYPE}.getQuery(): map<string, list<string>>`, (url: CelUrl) => {
    const query: Record<string, string[]> = Object.create(null);
    for (const [key, value] of new URLSearchParams(url.query)) (query[key] ??= []).push(value);
    return query;
  });
}

function parseUrl(text: string): CelUrl | undefined {
  const absolutePath = text.startsWith('/') && !text.startsWith('//');
  if (!absolutePath && !/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(text)) return undefined;
  let url: URL;
  try {
    url = absolutePath ? new URL(text, 'relative:///') : new URL(text);
  } catch {
    return undefined;
  }
  if (absolutePath) return new CelUrl('', '', '', '', url.pathname, url.search.slice(1));
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return new CelUrl(url.protocol.slice(0, -1), url.host, hostname, url.port, url.pathname, url.search.slice(1));
}
