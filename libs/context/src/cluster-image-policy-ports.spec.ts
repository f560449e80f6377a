import { describe, expect, it } from 'vitest';
import type { OciAccessRequest, OciReader } from '@edict/engine';
import type { TrustedRootSource } from '@edict/image-verify';
import { ClusterImagePolicyPorts } from './cluster-image-policy-ports';
import type { ImageDataSource } from './image-data-source';

/** An image source recording what each reader was asked for. */
function source(root?: TrustedRootSource) {
  const asked: OciAccessRequest[] = [];
  const images: ImageDataSource = {
    imageData: () => Promise.reject(new Error('not used')),
    oci: (access) => {
      asked.push(access);
      return {} as OciReader;
    },
    ...(root ? { trustedRoot: () => Promise.resolve(root) } : {}),
  };
  return { images, asked };
}

describe('ClusterImagePolicyPorts', () => {
  it("hands on the controller's trusted root, and none when the source has none", async () => {
    const root: TrustedRootSource = { trustedRootJson: '{}' };
    expect(await new ClusterImagePolicyPorts(source(root).images, 'kyverno').ports?.trustedRoot?.()).toBe(root);
    expect(new ClusterImagePolicyPorts(source().images, 'kyverno').ports?.trustedRoot).toBeUndefined();
  });

  it("reads a cluster policy's Secrets in the controller's namespace, by bare name or namespace/name", () => {
    const { images, asked } = source();
    const ports = new ClusterImagePolicyPorts(images, 'kyverno').ports!;
    ports.oci({ secrets: ['pull', 'kyverno/other'] });
    expect(asked).toEqual([{ secrets: ['pull', 'other'] }]);
    expect(() => ports.oci({ secrets: ['tenant-b/pull'] })).toThrow(
      `credentials.secrets "tenant-b/pull": Secrets outside the controller's namespace (kyverno) are not supported yet`,
    );
  });

  it("fails closed for a namespaced policy's Secrets and never lends it the default pull Secrets", () => {
    const { images, asked } = source();
    const ports = new ClusterImagePolicyPorts(images, 'kyverno').ports!;
    expect(() => ports.oci({ secrets: ['tenant-a/pull'], namespace: 'tenant-a' })).toThrow('not supported yet');
    ports.oci({ namespace: 'tenant-a' });
    expect(asked).toEqual([{ secrets: [] }]);
  });
});
