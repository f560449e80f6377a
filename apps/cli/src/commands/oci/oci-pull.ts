/**
 * `edict oci pull`: Kyverno's `kyverno oci pull`. Reads the image's layers of Kyverno's policy media
 * type and writes each policy they hold to `<dir>/<name>.yaml`. The image comes from a registry
 * anyone with push rights can write to, so everything read is bounded (layers, bytes, documents) and
 * a file name is written only when it is a valid Kubernetes object name: no separator, no `..`, and
 * never through a symbolic link. Layer annotations are not used for file names.
 */
import { lstatSync, mkdirSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { isObject, parseDocuments, type JsonObject } from '@edict/foundation';
import { celDocumentList } from '@edict/kyverno-test';
import { MEDIA_TYPES } from '@edict/registry';
import type { CommandIO } from '../io';
import { ociTarget, type OciSessionFactory } from './oci-access';
import { POLICY_LAYER_MEDIA_TYPE } from './policy-image';
import { MAX_POLICIES_PER_IMAGE } from './oci-push';

/** Largest policy layer read. */
export const MAX_LAYER_BYTES = 4 * 1024 * 1024;
/** Most layers read from one image. */
const MAX_LAYERS = MAX_POLICIES_PER_IMAGE;
/** Most policy documents in one layer. */
const MAX_DOCUMENTS_PER_LAYER = 100;
/** A Kubernetes object name (DNS-1123 subdomain): the only names written as files. */
const OBJECT_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const MAX_NAME_LENGTH = 253;
/** Kyverno's CEL policy kinds (exceptions and Kubernetes' admission policies are not pulled). */
const CEL_POLICY_LISTS = new Set<string>([
  'validatingPolicies',
  'imageValidatingPolicies',
  'mutatingPolicies',
  'generatingPolicies',
  'deletingPolicies',
]);

export interface PullOptions {
  image: string;
  directory: string;
  insecure: boolean;
}

export async function ociPull(options: PullOptions, io: CommandIO, session: OciSessionFactory): Promise<void> {
  if (!options.image) throw new Error('image is required');
  if (!options.directory) throw new Error('dir is required');
  const dir = isAbsolute(options.directory) ? resolve(options.directory) : resolve(process.cwd(), options.directory);
  prepareDirectory(dir);
  const target = ociTarget(options.image);
  io.err(`Downloading policies from an image [${target.name}]...\n`);
  const { client, close } = session(target, options.insecure);
  try {
    const manifest = await client
      .getManifest(target.repo, target.identifier, [MEDIA_TYPES.ociManifest, MEDIA_TYPES.dockerManifest])
      .catch((error: Error) => {
        throw new Error(`getting image: ${error.message}`, { cause: error });
      });
    if (!manifest) throw new Error(`getting image: ${target.name} not found`);
    for (const layer of policyLayers(manifest.json, target.name)) {
      const bytes = await client.getBlob(target.repo, layer.digest, MAX_LAYER_BYTES).catch((error: Error) => {
        throw new Error(`getting layer blob: ${error.message}`, { cause: error });
      });
      for (const policy of layerPolicies(bytes, layer.digest)) {
        const file = policyFile(dir, policy);
        io.err(`Saving policy into disk [${file}]...\n`);
        writeFileSync(file, stringify(policy, { version: '1.1' }), { mode: 0o600 });
      }
    }
  } finally {
    close();
  }
  io.err('Done.\n');
}

/** Kyverno creates the directory when missing; an existing path must be a directory. */
function prepareDirectory(dir: string): void {
  let stat;
  try {
    stat = lstatSync(dir);
  } catch {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o750 });
    } catch (error) {
      throw new Error(`unable to create directory ${dir}: ${(error as Error).message}`, { cause: error });
    }
    return;
  }
  if (!stat.isDirectory()) throw new Error(`dir '${dir}' must be a directory`);
}

/** The layers of Kyverno's policy media type; other layers are left alone, as Kyverno does. */
function policyLayers(manifest: JsonObject, name: string): Array<{ digest: string }> {
  const { layers } = manifest;
  if (!Array.isArray(layers)) throw new Error(`getting image layers: the manifest of ${name} has no layers list`);
  if (layers.length > MAX_LAYERS) {
    throw new Error(`getting image layers: ${name} has ${layers.length} layers, more than ${MAX_LAYERS}`);
  }
  return layers.flatMap((layer, i) => {
    if (!isObject(layer) || layer.mediaType !== POLICY_LAYER_MEDIA_TYPE) return [];
    if (typeof layer.digest !== 'string') throw new Error(`getting image layers: layer ${i} of ${name} has no digest`);
    return [{ digest: layer.digest }];
  });
}

/** The policies of a layer: Kyverno's policies and its CEL policies; other documents are an error. */
function layerPolicies(bytes: Uint8Array, digest: string): JsonObject[] {
  const parsed = parseDocuments(Buffer.from(bytes).toString('utf8'), `layer ${digest}`);
  if (parsed.errors.length > 0) {
    throw new Error(`unmarshaling layer blob: ${parsed.errors[0].file}: ${parsed.errors[0].message}`);
  }
  const documents = parsed.documents.filter((doc) => doc.value !== null && doc.value !== undefined);
  if (documents.length > MAX_DOCUMENTS_PER_LAYER) {
    throw new Error(`unmarshaling layer blob: layer ${digest} holds more than ${MAX_DOCUMENTS_PER_LAYER} documents`);
  }
  return documents.map((doc, i) => {
    const value = doc.value;
    if (!isPolicy(value)) {
      throw new Error(`unmarshaling layer blob: layer ${digest} document ${i + 1} is not a Kyverno policy`);
    }
    return value;
  });
}

function isPolicy(value: unknown): value is JsonObject {
  if (!isObject(value) || typeof value.apiVersion !== 'string') return false;
  if (value.apiVersion.startsWith('kyverno.io/')) return value.kind === 'ClusterPolicy' || value.kind === 'Policy';
  const list = celDocumentList(value);
  return list !== undefined && CEL_POLICY_LISTS.has(list);
}

/** `<dir>/<name>.yaml` for a policy whose name is a valid object name, never through a symlink. */
function policyFile(dir: string, policy: JsonObject): string {
  const metadata = isObject(policy.metadata) ? policy.metadata : {};
  const name = metadata.name;
  if (typeof name !== 'string' || name.length > MAX_NAME_LENGTH || !OBJECT_NAME.test(name)) {
    throw new Error(`policy name ${JSON.stringify(String(name).slice(0, 100))} is not a valid Kubernetes object name`);
  }
  const file = join(dir, `${name}.yaml`);
  let existing;
  try {
    existing = lstatSync(file);
  } catch {
    return file;
  }
  if (!existing.isFile()) throw new Error(`cannot write ${file}: it exists and is not a regular file`);
  return file;
}
