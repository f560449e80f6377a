// Test-only helpers: sign manifests the way `kubectl sigstore sign` embeds them in annotations.
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { stringify } from 'yaml';
import type { JsonObject, KubeObject } from '@edict/foundation';

export interface TestKey {
  publicPem: string;
  privateKey: KeyObject;
}

export function newKey(type: 'ec' | 'rsa' | 'ed25519' = 'ec'): TestKey {
  const pair =
    type === 'ec'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : type === 'rsa'
        ? generateKeyPairSync('rsa', { modulusLength: 2048 })
        : generateKeyPairSync('ed25519');
  return {
    publicPem: (pair.publicKey.export({ type: 'spki', format: 'pem' }) as string).trim(),
    privateKey: pair.privateKey,
  };
}

export interface TarFile {
  name: string;
  content: string | Buffer;
  /** Type flag; '0' (regular file) by default. */
  type?: string;
  /** ustar prefix field (directory part of a long path). */
  prefix?: string;
}

/** A ustar archive of the files, with the end-of-archive blocks. */
export function tarArchive(files: readonly TarFile[]): Buffer {
  const blocks: Buffer[] = [];
  for (const file of files) {
    const data = typeof file.content === 'string' ? Buffer.from(file.content, 'utf8') : file.content;
    const header = Buffer.alloc(512);
    header.write(file.name, 0, 100, 'utf8');
    header.write('0000644\0', 100, 'latin1');
    header.write('0000000\0', 108, 'latin1');
    header.write('0000000\0', 116, 'latin1');
    header.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124, 'latin1');
    header.write('00000000000\0', 136, 'latin1');
    header.write(file.type ?? '0', 156, 'latin1');
    header.write('ustar\0', 257, 'latin1');
    header.write('00', 263, 'latin1');
    if (file.prefix) header.write(file.prefix, 345, 155, 'utf8');
    header.fill(0x20, 148, 156);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
    blocks.push(header, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

/** The signed artifact: a tar.gz holding the manifests as one YAML file, or the plain YAML text. */
export function artifactOf(manifests: readonly JsonObject[], format: 'tar' | 'plain' = 'tar'): Buffer {
  const text = manifests.map((m) => stringify(m)).join('---\n');
  if (format === 'plain') return Buffer.from(text, 'utf8');
  return gzipSync(tarArchive([{ name: 'manifest.yaml', content: text }]));
}

export interface SignOptions {
  /** What was signed; the resource itself by default. */
  manifests?: readonly JsonObject[];
  format?: 'tar' | 'plain';
  domain?: string;
}

/** The resource with `message` and `signature`, `signature_1`, ... annotations, one per key. */
export function signResource(resource: KubeObject, keys: readonly TestKey[], options: SignOptions = {}): KubeObject {
  const domain = options.domain ?? 'cosign.sigstore.dev';
  const artifact = artifactOf(options.manifests ?? [resource], options.format);
  const annotations: Record<string, string> = { [`${domain}/message`]: gzipSync(artifact).toString('base64') };
  keys.forEach((key, i) => {
    const algorithm = key.privateKey.asymmetricKeyType === 'ed25519' ? null : 'sha256';
    annotations[`${domain}/signature${i === 0 ? '' : `_${i}`}`] = sign(algorithm, artifact, key.privateKey).toString(
      'base64',
    );
  });
  const metadata = (resource.metadata ?? {}) as JsonObject;
  const existing = (metadata.annotations ?? {}) as JsonObject;
  return { ...resource, metadata: { ...metadata, annotations: { ...existing, ...annotations } } } as KubeObject;
}
