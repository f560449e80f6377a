import type { Environment } from '@marcbachmann/cel-js';
import { celError } from './errors';
import { escapedPath, GoUrlError, parseGoQuery, parseGoUrl, splitHostPort, type GoUrl } from './go-url';
import { chargeString } from './runtime';

/** A parsed URL (Kubernetes' CEL `kubernetes.URL`). */
export class CelUrl {
  constructor(readonly url: GoUrl) {}
}

const TYPE = 'kubernetes.URL';

/**
 * Kubernetes' CEL URL library: `url()`, `isURL()` and the getters. A URL must be absolute (with a
 * scheme) or an absolute path, as Go's url.ParseRequestURI requires; it is then read as url.Parse
 * reads it (a fragment apart), without normalizing it.
 */
export function registerUrl(env: Environment): void {
  env.registerType(TYPE, CelUrl);
  env.registerFunction(`url(string): ${TYPE}`, (text: string) => {
    chargeString(text.length);
    try {
      parseGoUrl(text, true);
      return new CelUrl(parseGoUrl(text, false));
    } catch (error) {
      if (!(error instanceof GoUrlError)) throw error;
      throw celError(`URL parse error during conversion from string: ${error.message}`);
    }
  });
  env.registerFunction('isURL(string): bool', (text: string) => {
    chargeString(text.length);
    try {
      parseGoUrl(text, true);
      return true;
    } catch (error) {
      if (!(error instanceof GoUrlError)) throw error;
      return false;
    }
  });
  env.registerFunction(`${TYPE}.getScheme(): string`, (u: CelUrl) => u.url.scheme);
  env.registerFunction(`${TYPE}.getHost(): string`, (u: CelUrl) => u.url.host);
  env.registerFunction(`${TYPE}.getHostname(): string`, (u: CelUrl) => splitHostPort(u.url.host).hostname);
  env.registerFunction(`${TYPE}.getPort(): string`, (u: CelUrl) => splitHostPort(u.url.host).port);
  env.registerFunction(`${TYPE}.getEscapedPath(): string`, (u: CelUrl) => escapedPath(u.url));
  env.registerFunction(`${TYPE}.getQuery(): map<string, list<string>>`, (u: CelUrl) => parseGoQuery(u.url.rawQuery));
}
