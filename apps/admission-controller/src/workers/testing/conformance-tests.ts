import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The conformance corpus's policy tests (`kyverno-test.yaml`), in path order: ../shared/conformance beside
 * the repository, or $EDICT_CONFORMANCE_DIR. Throws, saying where it looked, when the corpus is missing.
 */
export function conformanceTestFiles(): string[] {
  const dir = join(
    process.env.EDICT_CONFORMANCE_DIR ?? resolve(__dirname, '../../../../../../shared/conformance'),
    'policies',
  );
  if (!existsSync(dir)) {
    throw new Error(
      `Kyverno's CLI test corpus is not at ${dir}: put it at ../shared/conformance beside the repository, or set EDICT_CONFORMANCE_DIR`,
    );
  }
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('/kyverno-test.yaml'))
    .sort()
    .map((path) => join(dir, path));
}
