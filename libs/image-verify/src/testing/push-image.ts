import type { OciWriter } from './oci-writer';

const MANIFEST = 'application/vnd.oci.image.manifest.v1+json';

/**
 * Pushes a small single-layer image (distinct per `seed`) as `repo:tag`; answers its digest and
 * `repo@digest`. `repo` is `registry/repository`.
 */
export async function pushImage(
  writer: OciWriter,
  repo: string,
  tag: string,
  seed = `${repo}:${tag}`,
): Promise<{ digest: string; reference: string }> {
  const encoder = new TextEncoder();
  const layer = await writer.pushBlob(repo, encoder.encode(`layer ${seed}`));
  const config = await writer.pushBlob(
    repo,
    encoder.encode(JSON.stringify({ architecture: 'amd64', os: 'linux', config: { Labels: { seed } } })),
  );
  const manifest = {
    schemaVersion: 2,
    mediaType: MANIFEST,
    config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: config.digest, size: config.size },
    layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar', digest: layer.digest, size: layer.size }],
  };
  const pushed = await writer.pushManifest(repo, tag, manifest, MANIFEST);
  return { digest: pushed.digest, reference: `${repo}@${pushed.digest}` };
}
