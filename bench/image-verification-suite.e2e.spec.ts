/**
 * The bench's image suite runs in-process (no bundle build): the image rule really verifies, the
 * uncached reviews really reach the registry. Its figures are printed, never asserted.
 */
import { describe, expect, it } from 'vitest';
import { formatImageVerificationSuite, runImageVerificationSuite } from './image-verification-suite';

describe('bench: image verification suite', () => {
  it('times a review with a verifyImages rule, cached and against the registry', { timeout: 300_000 }, async () => {
    const suite = await runImageVerificationSuite();
    process.stdout.write(`\n${formatImageVerificationSuite(suite)}\n`);
    expect(suite.cached.calls).toBeGreaterThan(0);
    expect(suite.uncached.registryCalls).toBeGreaterThan(0);
  });
});
