/**
 * `edict oci push`: Kyverno's `kyverno oci push`. Reads the policies of a file or folder, validates
 * them as Kyverno does before pushing (an invalid policy stops the push), and uploads an image with
 * one layer per policy: Kyverno's policies (ClusterPolicy, Policy) and Kyverno's CEL policies.
 */
import { stringify } from 'yaml';
import {
  deletingPolicyErrors,
  generatingPolicyErrors,
  imageValidatingPolicyErrors,
  mutatingPolicyErrors,
  validatingPolicyErrors,
} from '@edict/cel-policies';
import { formatDiagnostic, type KubeObject } from '@edict/foundation';
import { loadPolicyFiles, type CelDocuments } from '@edict/kyverno-test';
import type { CommandIO } from '../io';
import type { OciSessionFactory } from './oci-access';
import { ociTarget } from './oci-access';
import { imageConfig, imageManifest, OCI_MANIFEST_MEDIA_TYPE, type PolicyLayer } from './policy-image';

/** Most policies one image holds (a layer each). */
export const MAX_POLICIES_PER_IMAGE = 1000;

type CelCheck = (policy: KubeObject) => ReadonlyArray<{ field: string; message: string }>;

/** Kyverno's CEL policy kinds that are pushed, and the compilation that checks each. */
const CEL_CHECKS: ReadonlyArray<[keyof CelDocuments, CelCheck]> = [
  ['validatingPolicies', validatingPolicyErrors],
  ['imageValidatingPolicies', imageValidatingPolicyErrors],
  ['mutatingPolicies', mutatingPolicyErrors],
  ['generatingPolicies', (policy) => generatingPolicyErrors(policy)],
  ['deletingPolicies', deletingPolicyErrors],
];

export interface PushOptions {
  image: string;
  policy: string;
  insecure: boolean;
}

export async function ociPush(options: PushOptions, io: CommandIO, session: OciSessionFactory): Promise<void> {
  if (!options.image) throw new Error('image is required');
  if (!options.policy) throw new Error('policy is required');
  const layers = readPolicies(options.policy);
  const target = ociTarget(options.image);
  for (const { policy } of layers) {
    const namespaced = policy.kind === 'Policy' || policy.kind.startsWith('Namespaced');
    io.err(`Adding ${namespaced ? 'policy' : 'cluster policy'} [${policy.metadata.name}]\n`);
  }
  const config = imageConfig(layers);
  const manifest = imageManifest(config, layers);
  io.err(`Uploading [${target.name}]...\n`);
  const { client, close } = session(target, options.insecure);
  try {
    for (const layer of layers) await client.pushBlob(target.repo, layer.bytes);
    await client.pushBlob(target.repo, config);
    await client.pushManifest(target.repo, target.identifier, manifest, OCI_MANIFEST_MEDIA_TYPE);
  } catch (error) {
    throw new Error(`writing image: ${(error as Error).message}`, { cause: error });
  } finally {
    close();
  }
  io.err('Done.\n');
}

/** The policies of the path, validated, one layer each; the first invalid one is an error. */
function readPolicies(path: string): PolicyLayer[] {
  let files;
  try {
    files = loadPolicyFiles([path], process.cwd());
  } catch (error) {
    throw new Error(`unable to read policy file or directory ${path}: ${(error as Error).message}`, { cause: error });
  }
  const [invalid] = files.invalid;
  if (invalid) {
    const reasons = invalid.errors.map(formatDiagnostic).join('; ');
    throw new Error(`validating policy ${invalid.policy.metadata.name}: ${reasons}`);
  }
  const policies: KubeObject[] = files.policies.map((policy) => policy as unknown as KubeObject);
  for (const [list, check] of CEL_CHECKS) {
    for (const policy of files.cel[list]) {
      const errors = check(policy);
      if (errors.length > 0) {
        const reasons = errors.map((error) => `${error.field}: ${error.message}`).join('; ');
        throw new Error(`validating policy ${policy.metadata.name}: ${reasons}`);
      }
      policies.push(policy);
    }
  }
  if (policies.length === 0) throw new Error(`no policies found in ${path}`);
  if (policies.length > MAX_POLICIES_PER_IMAGE) {
    throw new Error(`${path} holds ${policies.length} policies, more than an image holds (${MAX_POLICIES_PER_IMAGE})`);
  }
  return policies.map((policy) => ({ policy, bytes: Buffer.from(stringify(policy, { version: '1.1' })) }));
}
