import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TrustedRoot } from '@sigstore/protobuf-specs';
import type { TUFOptions } from '@sigstore/tuf';
import { parseTrustedRoot } from '@edict/image-verify';
import { createSigstoreTestTrust } from '@edict/image-verify/testing';
import {
  DEFAULT_TUF_SETTINGS,
  TufConfigError,
  TufTrustedRootProvider,
  trustedRootProviderFor,
  type TufSettings,
} from './tuf-trusted-root-provider';

const cachePath = mkdtempSync(join(tmpdir(), 'edict-tuf-'));
const settings = (extra: Partial<TufSettings> = {}): TufSettings => ({ ...DEFAULT_TUF_SETTINGS, cachePath, ...extra });

/** A TUF client that records what it was asked and must not be reached unless a mirror is configured. */
function fakeTuf(answer: () => Promise<TrustedRoot>) {
  const calls: TUFOptions[] = [];
  return {
    calls,
    getTrustedRoot: async (options: TUFOptions) => {
      calls.push(options);
      return answer();
    },
  };
}

describe('TufTrustedRootProvider (Sigstore trusted root from TUF, offline by default)', () => {
  it('answers nothing and never reaches the network when TUF is not enabled', async () => {
    const tuf = fakeTuf(() => Promise.reject(new Error('network')));
    const provider = new TufTrustedRootProvider(settings(), tuf);
    expect(await provider.source()).toBeUndefined();
    expect(tuf.calls).toEqual([]);
  });

  it('serves the bundled snapshot of the public trusted root offline when enabled without a mirror', async () => {
    const tuf = fakeTuf(() => Promise.reject(new Error('network')));
    const provider = new TufTrustedRootProvider(settings({ enableTuf: true }), tuf);
    const source = await provider.source();
    expect(tuf.calls).toEqual([]);
    const root = parseTrustedRoot(source!.trustedRootJson!);
    expect(root.certificateAuthorities.length).toBeGreaterThan(0);
    expect(root.tlogs.length).toBeGreaterThan(0);
  });

  it('reads a trusted_root.json file given directly, before any TUF setting', async () => {
    const trust = await createSigstoreTestTrust();
    const path = join(cachePath, 'trusted_root.json');
    writeFileSync(path, trust.trustedRootJson);
    const tuf = fakeTuf(() => Promise.reject(new Error('network')));
    const provider = new TufTrustedRootProvider(
      settings({ trustedRootPath: path, enableTuf: true, tufMirror: 'https://tuf-repo-cdn.sigstore.dev' }),
      tuf,
    );
    expect(await provider.source()).toEqual({ trustedRootJson: trust.trustedRootJson });
    expect(tuf.calls).toEqual([]);
  });

  it('fetches from the configured mirror with its root, and caches the answer for the refresh interval', async () => {
    const trust = await createSigstoreTestTrust();
    const root = TrustedRoot.fromJSON(JSON.parse(trust.trustedRootJson));
    const tuf = fakeTuf(async () => root);
    let now = 1_000;
    const rootRaw = Buffer.from(JSON.stringify({ signed: { _type: 'root' } })).toString('base64');
    const provider = new TufTrustedRootProvider(
      settings({
        enableTuf: true,
        tufMirror: 'https://tuf.example.com',
        tufRootRaw: rootRaw,
        refreshIntervalMs: 60_000,
      }),
      {
        ...tuf,
        now: () => now,
      },
    );
    const first = await provider.source();
    expect(parseTrustedRoot(first!.trustedRootJson!).tlogs).toHaveLength(1);
    expect(tuf.calls).toHaveLength(1);
    expect(tuf.calls[0]).toMatchObject({
      mirrorURL: 'https://tuf.example.com',
      cachePath,
      retry: false,
      rootPath: join(cachePath, 'edict-tuf-root.json'),
      forceInit: true,
    });
    now += 30_000;
    await provider.source();
    expect(tuf.calls).toHaveLength(1);
    now += 60_000;
    await provider.source();
    expect(tuf.calls).toHaveLength(2);
    expect(tuf.calls[1].forceInit).toBe(false);
  });

  it('keeps the last good root when a refresh fails, and names the source when there is none', async () => {
    const trust = await createSigstoreTestTrust();
    let fail = false;
    const tuf = fakeTuf(async () => {
      if (fail) throw new Error('mirror unreachable');
      return TrustedRoot.fromJSON(JSON.parse(trust.trustedRootJson));
    });
    let now = 0;
    const provider = new TufTrustedRootProvider(
      settings({ enableTuf: true, tufMirror: 'https://tuf-repo-cdn.sigstore.dev', refreshIntervalMs: 10 }),
      { ...tuf, now: () => now },
    );
    const good = await provider.trustedRootJson();
    fail = true;
    now += 100;
    expect(await provider.trustedRootJson()).toBe(good);
    const fresh = new TufTrustedRootProvider(
      settings({ enableTuf: true, tufMirror: 'https://tuf-repo-cdn.sigstore.dev' }),
      tuf,
    );
    await expect(fresh.trustedRootJson()).rejects.toThrow(
      /TUF mirror https:\/\/tuf-repo-cdn.sigstore.dev.*mirror unreachable/,
    );
  });

  it('refuses settings that would fetch without a root or from a URL, and bad roots', () => {
    expect(
      () => new TufTrustedRootProvider(settings({ enableTuf: true, tufMirror: 'https://tuf.example.com' })),
    ).toThrow(/needs its initial root/);
    expect(
      () => new TufTrustedRootProvider(settings({ enableTuf: true, tufRoot: 'https://example.com/root.json' })),
    ).toThrow(/must be a file path/);
    expect(() => new TufTrustedRootProvider(settings({ enableTuf: true, tufRootRaw: 'not json' }))).toThrow(
      TufConfigError,
    );
    expect(
      () => new TufTrustedRootProvider(settings({ enableTuf: true, tufMirror: 'file:///etc', tufRoot: '/r.json' })),
    ).toThrow(/http\(s\)/);
  });

  it('refuses a file that is not a Sigstore trusted root', async () => {
    const path = join(cachePath, 'not-a-root.json');
    writeFileSync(path, JSON.stringify({ mediaType: 'text/plain' }));
    await expect(new TufTrustedRootProvider(settings({ trustedRootPath: path })).source()).rejects.toThrow(
      /not a Sigstore trusted root/,
    );
  });
});

describe("trustedRootProviderFor (the controller's settings)", () => {
  it('builds none without enableTuf or a trusted root file', () => {
    expect(trustedRootProviderFor({}, cachePath)).toBeUndefined();
    expect(
      trustedRootProviderFor({ enableTuf: false, tufMirror: 'https://tuf.example.com' }, cachePath),
    ).toBeUndefined();
  });

  it('serves the trusted root file as is, offline', async () => {
    const trust = await createSigstoreTestTrust();
    const path = join(cachePath, 'settings-root.json');
    writeFileSync(path, trust.trustedRootJson);
    const tuf = fakeTuf(() => Promise.reject(new Error('network')));
    const provider = trustedRootProviderFor({ trustedRootPath: path }, cachePath, tuf);
    await expect(provider?.source()).resolves.toEqual({ trustedRootJson: trust.trustedRootJson });
    expect(tuf.calls).toHaveLength(0);
  });

  it('refuses a bad combination when built (a mirror of its own without its initial root)', () => {
    expect(() => trustedRootProviderFor({ enableTuf: true, tufMirror: 'https://tuf.example.com' }, cachePath)).toThrow(
      TufConfigError,
    );
  });
});
