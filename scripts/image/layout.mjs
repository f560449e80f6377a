// Writes the OCI image layout of Edict's image from the layers scripts/image/build.sh made: the
// blobs, the image config (entry point, non-root user, environment), the manifest and index.json
// naming it by the tag. Every JSON document is written compactly with its keys in a fixed order and
// every time is SOURCE_DATE_EPOCH, so the same layers give the same digest. Prints the manifest's digest.
// Usage: node scripts/image/layout.mjs <out> <tag> <layer.line> ...   (a line: name diff_id digest size;
// the compressed layer is beside it as <layer>.blob)
import { createHash } from 'node:crypto';
import { copyFileSync, linkSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Buffer } from 'node:buffer';

/** What the image runs, as whom and with what (docs/image.md). */
export const IMAGE_CONFIG = {
  User: '65532:65532',
  Env: [
    'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    'NODE_ENV=production',
    // The launcher writes its kubeconfig here: /app is read-only (and the chart's root filesystem too).
    'EDICT_KUBECONFIG=/tmp/.edict/kubeconfig',
  ],
  Entrypoint: ['/usr/bin/node', '/app/docker/entrypoint.mjs'],
  Cmd: ['admission-controller'],
  WorkingDir: '/app',
  ExposedPorts: { '8000/tcp': {}, '9443/tcp': {} },
};

const [out, tag, ...lines] = process.argv.slice(2);
if (!out || !tag || lines.length === 0) {
  console.error('usage: node scripts/image/layout.mjs <out> <tag> <layer.line> ...');
  process.exit(2);
}
const epoch = Number(process.env.SOURCE_DATE_EPOCH ?? '0');
if (!Number.isInteger(epoch) || epoch < 0) throw new Error(`SOURCE_DATE_EPOCH must be whole seconds, got ${epoch}`);
const created = new Date(epoch * 1000).toISOString().replace('.000Z', 'Z');
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

const blobs = join(out, 'blobs', 'sha256');
mkdirSync(blobs, { recursive: true });

function writeBlob(text) {
  const bytes = Buffer.from(text);
  const hex = createHash('sha256').update(bytes).digest('hex');
  writeFileSync(join(blobs, hex), bytes);
  return { digest: `sha256:${hex}`, size: bytes.length };
}

const layers = lines.map((file) => {
  const [name, diffId, digest, size] = readFileSync(file, 'utf8').trim().split(' ');
  const source = file.replace(/\.line$/, '.blob');
  const target = join(blobs, digest.slice('sha256:'.length));
  try {
    linkSync(source, target);
  } catch {
    copyFileSync(source, target);
  }
  return { name, diffId, digest, size: Number(size) };
});

const labels = {
  'org.opencontainers.image.title': pkg.name,
  'org.opencontainers.image.description': pkg.description,
  'org.opencontainers.image.version': pkg.version,
  'org.opencontainers.image.licenses': pkg.license,
};
const config = writeBlob(
  JSON.stringify({
    created,
    architecture: 'amd64',
    os: 'linux',
    config: { ...IMAGE_CONFIG, Labels: labels },
    rootfs: { type: 'layers', diff_ids: layers.map((layer) => layer.diffId) },
    history: layers.map((layer) => ({ created, created_by: `scripts/image/build.sh: the ${layer.name} layer` })),
  }),
);
const manifest = writeBlob(
  JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...config },
    layers: layers.map(({ digest, size }) => ({
      mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip',
      digest,
      size,
    })),
    annotations: { 'org.opencontainers.image.created': created, ...labels },
  }),
);
writeFileSync(
  join(out, 'index.json'),
  JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.index.v1+json',
    manifests: [
      {
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        ...manifest,
        platform: { architecture: 'amd64', os: 'linux' },
        annotations: { 'org.opencontainers.image.ref.name': tag },
      },
    ],
  }),
);
writeFileSync(join(out, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
console.log(manifest.digest);
