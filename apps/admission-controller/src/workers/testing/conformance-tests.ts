import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The conformance corpus's policy tests (`kyverno-test.yaml`), in path order; none without the corpus. */
export function conformanceTestFiles(): string[] {
  const dir = join(
    process.env.EDICT_CONFORMANCE_DIR ?? resolve(__dirname, '../../../../../../shared/conformance'),
    'policies',
  );
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('/kyverno-test.yaml'))
    .sort()
    .map((path) => join(dir, path));
}
