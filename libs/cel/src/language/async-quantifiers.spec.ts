import { describe, expect, it } from 'vitest';
import { compileCel, IMAGE_VERIFIER_KEY, toCel, type CelImageVerifier } from '../index';

/** A verifier whose signature check answers later, as a registry round trip does: 1 for `signed*` images. */
function laterVerifier(): CelImageVerifier {
  return {
    verifyImageSignatures: async (image) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (image === 'broken') throw new Error('registry down');
      return image.startsWith('signed') ? 1n : 0n;
    },
    verifyAttestationSignatures: () => 0n,
    extractPayload: () => null,
    getImageData: () => null,
  };
}

const variables = { params: false, authorizer: false, kyverno: true, imageVerification: true } as const;
const run = (source: string, images: string[]) =>
  compileCel(source, variables, 'bool').evaluate({
    images: toCel({ c: images }),
    [IMAGE_VERIFIER_KEY]: laterVerifier(),
  }) as Promise<unknown>;

describe('all and exists over a predicate that answers later', () => {
  it('answers the same on every run (cel-js 8.0.0 answered undefined from the second on)', async () => {
    const source = 'images.c.all(i, verifyImageSignatures(i, []) > 0)';
    for (let i = 0; i < 3; i++) {
      expect(await run(source, ['signed-a', 'signed-b'])).toBe(true);
      expect(await run(source, ['signed-a', 'plain'])).toBe(false);
    }
    const exists = 'images.c.exists(i, verifyImageSignatures(i, []) > 0)';
    for (let i = 0; i < 3; i++) {
      expect(await run(exists, ['plain', 'signed-a'])).toBe(true);
      expect(await run(exists, ['plain', 'other'])).toBe(false);
    }
  });

  it('keeps concurrent runs apart', async () => {
    const source = 'images.c.all(i, verifyImageSignatures(i, []) > 0)';
    const results = await Promise.all([
      run(source, ['signed-a', 'signed-b']),
      run(source, ['signed-a', 'plain']),
      run(source, ['plain']),
      run(source, ['signed-c']),
    ]);
    expect(results).toEqual([true, false, false, true]);
  });

  it('absorbs an error when another element decides, and raises it otherwise', async () => {
    expect(await run('images.c.exists(i, verifyImageSignatures(i, []) > 0)', ['broken', 'signed-a'])).toBe(true);
    expect(await run('images.c.all(i, verifyImageSignatures(i, []) > 0)', ['broken', 'plain'])).toBe(false);
    await expect(run('images.c.all(i, verifyImageSignatures(i, []) > 0)', ['broken', 'signed-a'])).rejects.toThrow(
      'registry down',
    );
  });
});
