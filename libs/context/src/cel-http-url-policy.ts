/**
 * Which URLs Kyverno's CEL `http` library may call, beyond the egress client's address block list
 * (which refuses loopback, private and metadata addresses after resolving): host names refused
 * outright (cloud metadata servers whose addresses may not fall in a blocked range; Kyverno's
 * `--httpBlocklist` names), and, when given, URL prefixes a call must match (Kyverno's
 * `--httpAllowlist`: same scheme, host and port; a path prefix ending at a segment boundary).
 */

/** Kyverno's DefaultBlockedHosts: GCP's and Oracle Cloud's metadata servers. */
export const DEFAULT_BLOCKED_HTTP_HOSTS: readonly string[] = Object.freeze([
  'metadata.google.internal',
  'metadata.internal',
]);

export class CelHttpUrlPolicy {
  private readonly blockedHosts: ReadonlySet<string>;
  private readonly allowed: readonly URL[];

  constructor(
    options: { readonly blockedHosts?: readonly string[]; readonly allowedUrlPrefixes?: readonly string[] } = {},
  ) {
    this.blockedHosts = new Set(
      (options.blockedHosts ?? DEFAULT_BLOCKED_HTTP_HOSTS).map(normalizeHost).filter(Boolean),
    );
    this.allowed = (options.allowedUrlPrefixes ?? [])
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '')
      .map((entry) => {
        let url: URL;
        try {
          url = new URL(entry);
        } catch {
          throw new Error(`invalid allowlist URL ${JSON.stringify(entry)}`);
        }
        if (!url.host) throw new Error(`allowlist entry ${JSON.stringify(entry)} must include scheme and host`);
        return url;
      });
  }

  /** Why `rawUrl` may not be called, or undefined when it may. */
  refusal(rawUrl: string): string | undefined {
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      return 'invalid URL';
    }
    if (this.allowed.length > 0 && !this.allowed.some((entry) => matches(entry, url))) {
      return 'no matching allowlist entry';
    }
    const host = normalizeHost(url.hostname);
    if (this.blockedHosts.has(host)) return `hostname ${JSON.stringify(host)} is on the blocklist`;
    return undefined;
  }
}

function matches(entry: URL, url: URL): boolean {
  if (entry.protocol !== url.protocol) return false;
  if (normalizeHost(entry.hostname) !== normalizeHost(url.hostname) || port(entry) !== port(url)) return false;
  const prefix = entry.pathname;
  if (prefix === '' || prefix === '/') return true;
  if (url.pathname === prefix) return true;
  if (!url.pathname.startsWith(prefix)) return false;
  return prefix.endsWith('/') || url.pathname[prefix.length] === '/';
}

function port(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : url.protocol === 'http:' ? '80' : '');
}

/** Host names compare without case and without a final dot. */
function normalizeHost(host: string): string {
  return host.trim().toLowerCase().replace(/\.+$/, '');
}
