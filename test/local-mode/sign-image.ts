/**
 * `npm run sign-image -- <image> [--unsigned] [--key <file>]`: local mode's signing step. Pushes a
 * small image to the local registry (`npm run registry`) when the tag is not there yet, then signs
 * it with Cosign (a signature in cosign's `sha256-<digest>.sig` tag), the key pair made on first
 * use at `.edict/cosign.key` / `.edict/cosign.pub`. Only registries on 127.0.0.1: this is a
 * demonstration tool, not a replacement for cosign.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseImageRef } from '@edict/image-verify';
import { cosignSign, generateKeyPair, type OciWriter } from '@edict/image-verify/testing';
import { pushTestImage, registryClientForTests } from '@edict/registry/testing';

export const SIGN_IMAGE_USAGE =
  'usage: npm run sign-image -- <127.0.0.1:PORT/repository:tag> [--unsigned] [--key <file>]';
const DEFAULT_KEY = '.edict/cosign.key';

export class SignImageError extends Error {
  override readonly name = 'SignImageError';
}

export interface SignImageArgs {
  readonly image: string;
  /** Push only: an image without a signature, to see it blocked. */
  readonly unsigned: boolean;
  /** The private key (PEM); its public key beside it with `.pub` for `.key`. */
  readonly keyPath: string;
  /** Where paths are shown from (the current folder). */
  readonly cwd: string;
}

export function parseSignImageArgs(argv: readonly string[], cwd: string): SignImageArgs {
  let image: string | undefined;
  let unsigned = false;
  let keyPath = resolve(cwd, DEFAULT_KEY);
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (arg === '--unsigned') unsigned = true;
    else if (arg === '--key') {
      const value = argv[++index];
      if (!value) throw new SignImageError(`--key needs a file\n${SIGN_IMAGE_USAGE}`);
      keyPath = resolve(cwd, value);
    } else if (arg.startsWith('-')) throw new SignImageError(`unknown option ${arg}\n${SIGN_IMAGE_USAGE}`);
    else if (image) throw new SignImageError(`one image at a time, got ${image} and ${arg}\n${SIGN_IMAGE_USAGE}`);
    else image = arg;
  }
  if (!image) throw new SignImageError(SIGN_IMAGE_USAGE);
  const ref = parseImageRef(image);
  if (!/^127\.0\.0\.1:\d{1,5}$/.test(ref.registry))
    throw new SignImageError(
      `${image}: sign-image works with the local registry only (127.0.0.1:PORT, see npm run registry), not ${ref.registry}`,
    );
  if (ref.digest) throw new SignImageError(`${image}: name the image by tag (the tool pushes it when missing)`);
  return { image, unsigned, keyPath, cwd };
}

/** What the tool did, one line each, as it prints them. */
export async function signImage(args: SignImageArgs, print: (line: string) => void): Promise<void> {
  const ref = parseImageRef(args.image);
  const tag = ref.tag ?? 'latest';
  const client = registryClientForTests();
  try {
    const oci = client.oci();
    const existing = await oci.resolve(ref.repo, tag);
    if (existing) print(`found ${args.image} (${existing.digest})`);
    else {
      const pushed = await pushTestImage(oci, ref.repo, tag, { seed: args.image });
      print(`pushed ${args.image} (${pushed.digest})`);
    }
    if (args.unsigned) return;
    const shown = (path: string): string => (path.startsWith(`${args.cwd}/`) ? path.slice(args.cwd.length + 1) : path);
    const { privateKeyPem, publicKeyPath } = keyPair(args.keyPath, (made) =>
      print(`made a key pair: ${shown(args.keyPath)}, ${shown(made)}`),
    );
    await cosignSign(oci as unknown as OciWriter, args.image, privateKeyPem);
    print(`signed ${args.image} with ${shown(args.keyPath)}; public key: ${shown(publicKeyPath)}`);
  } finally {
    client.close();
  }
}

/** The key pair at `keyPath` (and `.pub` beside it), made on first use (`made` is told the public key's path). */
function keyPair(
  keyPath: string,
  made: (publicKeyPath: string) => void,
): { privateKeyPem: string; publicKeyPath: string } {
  const publicKeyPath = keyPath.replace(/(\.key)?$/, '.pub');
  if (existsSync(keyPath)) return { privateKeyPem: readFileSync(keyPath, 'utf8'), publicKeyPath };
  const { privateKeyPem, publicKeyPem } = generateKeyPair('ecdsa-p256');
  mkdirSync(dirname(keyPath), { recursive: true });
  writeFileSync(keyPath, privateKeyPem, { mode: 0o600 });
  chmodSync(keyPath, 0o600);
  writeFileSync(publicKeyPath, publicKeyPem);
  made(publicKeyPath);
  return { privateKeyPem, publicKeyPath };
}
