/**
 * Sigstore's trusted root (`trusted_root.json`) for keyless and Sigstore bundle verification, from
 * the operator's configuration, offline unless a TUF mirror is configured. Settings follow
 * Kyverno's flags: `--enableTuf`, `--tufMirror`, `--tufRoot` (a root.json file; URLs are refused,
 * they would be an unguarded fetch), `--tufRootRaw` (base64 root.json); Edict adds
 * `trustedRootPath` (a trusted_root.json file, no TUF at all). Without a mirror nothing reaches the
 * network: enableTuf alone serves the snapshot of Sigstore's public trusted root that
 * @sigstore/tuf ships (its seeds). The answer is cached in memory and refreshed after an interval;
 * a failed refresh keeps serving the last good root. The mirror is operator configuration, not
 * policy input, so it is not subject to the policy egress guards; fetches are bounded by a timeout.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getTrustedRoot, DEFAULT_MIRROR_URL, type TUFOptions } from '@sigstore/tuf';
import { TrustedRoot } from '@sigstore/protobuf-specs';
import { errorMessage } from '@edict/foundation';
import type { TrustedRootSource } from '@edict/image-verify';

export interface TufSettings {
  /** Kyverno's --enableTuf: use a TUF trusted root at all. */
  readonly enableTuf: boolean;
  /** Kyverno's --tufMirror: the only setting that lets the provider reach the network. */
  readonly tufMirror?: string;
  /** Kyverno's --tufRoot: path of the initial TUF root.json for the mirror. */
  readonly tufRoot?: string;
  /** Kyverno's --tufRootRaw: the initial TUF root.json, base64. */
  readonly tufRootRaw?: string;
  /** A Sigstore trusted_root.json file used as is (offline; takes precedence over TUF). */
  readonly trustedRootPath?: string;
  /** Where the TUF client keeps its metadata (a writable directory). */
  readonly cachePath: string;
  /** Bound of one refresh from the mirror. */
  readonly timeoutMs: number;
  /** How long a trusted root is served before it is fetched or read again. */
  readonly refreshIntervalMs: number;
}

export const DEFAULT_TUF_SETTINGS: Omit<TufSettings, 'cachePath'> = {
  enableTuf: false,
  timeoutMs: 10_000,
  refreshIntervalMs: 60 * 60_000,
};

const MAX_ROOT_FILE_BYTES = 1_000_000;

/** The controller settings the provider is built from (Kyverno's flag names). */
export interface TrustedRootSettings {
  readonly enableTuf?: boolean;
  readonly tufMirror?: string;
  readonly tufRoot?: string;
  readonly tufRootRaw?: string;
  readonly trustedRootPath?: string;
}

/**
 * The provider for a controller's settings, or undefined when neither TUF nor a trusted root file is
 * configured (keyless entries then bring their own roots and log keys). Throws TufConfigError for
 * a bad combination, so the controller stops at start.
 */
export function trustedRootProviderFor(
  settings: TrustedRootSettings,
  cachePath: string,
  deps: Partial<TufDependencies> = {},
): TufTrustedRootProvider | undefined {
  if (!settings.enableTuf && !settings.trustedRootPath) return undefined;
  return new TufTrustedRootProvider(
    {
      ...DEFAULT_TUF_SETTINGS,
      enableTuf: settings.enableTuf === true,
      tufMirror: settings.tufMirror,
      tufRoot: settings.tufRoot,
      tufRootRaw: settings.tufRootRaw,
      trustedRootPath: settings.trustedRootPath,
      cachePath,
    },
    deps,
  );
}

export class TufConfigError extends Error {
  override readonly name = 'TufConfigError';
}

/** What the provider reaches outside: injectable so specs never touch the network. */
export interface TufDependencies {
  getTrustedRoot(options: TUFOptions): Promise<TrustedRoot>;
  readFile(path: string): string;
  writeFile(path: string, text: string): void;
  now(): number;
}

const nodeDependencies: TufDependencies = {
  getTrustedRoot,
  readFile: (path) => {
    const text = readFileSync(path, 'utf8');
    if (text.length > MAX_ROOT_FILE_BYTES)
      throw new TufConfigError(`${path} is larger than ${MAX_ROOT_FILE_BYTES} bytes`);
    return text;
  },
  writeFile: (path, text) => {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
  },
  now: () => Date.now(),
};

export class TufTrustedRootProvider {
  private cached: { json: string; at: number } | undefined;
  private inFlight: Promise<string | undefined> | undefined;
  /** The configured initial root replaces a cached one once, as Kyverno's TUF Initialize does at start. */
  private seeded = false;
  private readonly deps: TufDependencies;

  constructor(
    private readonly settings: TufSettings,
    deps: Partial<TufDependencies> = {},
  ) {
    this.deps = { ...nodeDependencies, ...deps };
    checkSettings(settings);
  }

  /** Where the provider's root comes from, for logs and docs. */
  describe(): string {
    const s = this.settings;
    if (s.trustedRootPath) return `trusted root file ${s.trustedRootPath}`;
    if (!s.enableTuf) return 'none (TUF disabled)';
    if (s.tufMirror) return `TUF mirror ${s.tufMirror}`;
    return "the bundled snapshot of Sigstore's public trusted root (offline)";
  }

  /** The TrustedRootSource image verification takes, or undefined when nothing is configured. */
  async source(): Promise<TrustedRootSource | undefined> {
    const json = await this.trustedRootJson();
    return json === undefined ? undefined : { trustedRootJson: json };
  }

  async trustedRootJson(): Promise<string | undefined> {
    const now = this.deps.now();
    if (this.cached && now - this.cached.at < this.settings.refreshIntervalMs) return this.cached.json;
    this.inFlight ??= this.load()
      .then((json) => {
        if (json !== undefined) this.cached = { json, at: this.deps.now() };
        return json;
      })
      .catch((error: unknown) => {
        if (this.cached) return this.cached.json;
        throw new TufConfigError(`cannot load Sigstore's trusted root from ${this.describe()}: ${errorMessage(error)}`);
      })
      .finally(() => {
        this.inFlight = undefined;
      });
    return this.inFlight;
  }

  private async load(): Promise<string | undefined> {
    const s = this.settings;
    if (s.trustedRootPath) return checked(this.deps.readFile(s.trustedRootPath));
    if (!s.enableTuf) return undefined;
    if (!s.tufMirror) return checked(bundledTrustedRoot(this.deps));
    const rootPath = this.rootPath();
    const root = await withTimeout(
      this.deps.getTrustedRoot({
        mirrorURL: s.tufMirror,
        rootPath,
        cachePath: s.cachePath,
        timeout: s.timeoutMs,
        retry: false,
        forceInit: rootPath !== undefined && !this.seeded,
      }),
      s.timeoutMs,
      s.tufMirror,
    );
    this.seeded = true;
    return checked(JSON.stringify(TrustedRoot.toJSON(root)));
  }

  /** The initial root.json: --tufRoot as is, --tufRootRaw written under the cache directory. */
  private rootPath(): string | undefined {
    const s = this.settings;
    if (s.tufRoot) return s.tufRoot;
    if (!s.tufRootRaw) return undefined;
    const path = join(s.cachePath, 'edict-tuf-root.json');
    this.deps.writeFile(path, Buffer.from(s.tufRootRaw, 'base64').toString('utf8'));
    return path;
  }
}

function checkSettings(s: TufSettings): void {
  if (s.tufRoot && /^[a-z][a-z0-9+.-]*:\/\//i.test(s.tufRoot)) {
    throw new TufConfigError(
      `tufRoot ${JSON.stringify(s.tufRoot)} must be a file path: fetching the TUF root from a URL is not supported`,
    );
  }
  if (s.tufRoot && s.tufRootRaw) throw new TufConfigError('give tufRoot or tufRootRaw, not both');
  if (s.tufRootRaw) {
    try {
      JSON.parse(Buffer.from(s.tufRootRaw, 'base64').toString('utf8'));
    } catch {
      throw new TufConfigError('tufRootRaw is not a base64-encoded JSON TUF root');
    }
  }
  if (s.tufMirror) {
    let url: URL;
    try {
      url = new URL(s.tufMirror);
    } catch {
      throw new TufConfigError(`tufMirror ${JSON.stringify(s.tufMirror)} is not a URL`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw new TufConfigError(`tufMirror must be http(s), not ${url.protocol}`);
    if (s.tufMirror.replace(/\/$/, '') !== DEFAULT_MIRROR_URL && !s.tufRoot && !s.tufRootRaw) {
      throw new TufConfigError(`tufMirror ${s.tufMirror} needs its initial root: set tufRoot or tufRootRaw`);
    }
  }
  if (!(s.timeoutMs > 0) || !(s.refreshIntervalMs > 0))
    throw new TufConfigError('TUF timeout and refresh interval must be positive');
}

/** The trusted_root.json target @sigstore/tuf ships for the public-good instance (no network). */
function bundledTrustedRoot(deps: TufDependencies): string {
  const seeds = JSON.parse(deps.readFile(require.resolve('@sigstore/tuf/seeds.json'))) as Record<
    string,
    { targets?: Record<string, string> }
  >;
  const target = seeds[DEFAULT_MIRROR_URL]?.targets?.['trusted_root.json'];
  if (!target) throw new TufConfigError('the installed @sigstore/tuf carries no trusted_root.json snapshot');
  return Buffer.from(target, 'base64').toString('utf8');
}

function checked(json: string): string {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new TufConfigError('the trusted root is not JSON');
  }
  const mediaType = (value as { mediaType?: unknown } | null)?.mediaType;
  if (typeof mediaType !== 'string' || !mediaType.startsWith('application/vnd.dev.sigstore.trustedroot')) {
    throw new TufConfigError(
      `the trusted root's mediaType ${JSON.stringify(mediaType)} is not a Sigstore trusted root`,
    );
  }
  return json;
}

async function withTimeout<T>(work: Promise<T>, ms: number, mirror: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TufConfigError(`TUF mirror ${mirror} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
