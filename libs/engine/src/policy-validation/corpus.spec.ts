import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPolicyDocuments } from '../policy';
import { formatDiagnostic, isError } from '@edict/foundation';
import { validatePolicy, validatePolicyException } from './index';

// Kyverno's CLI test corpus beside the repository (../shared/conformance), or $EDICT_CONFORMANCE_DIR.
const CORPUS = process.env['EDICT_CONFORMANCE_DIR'] ?? resolve(__dirname, '../../../../../shared/conformance');
const MISSING = `Kyverno's CLI test corpus is not at ${CORPUS}: put it at ../shared/conformance beside the repository, or set EDICT_CONFORMANCE_DIR`;

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(name) ? [path] : [];
  });
}

describe('conformance corpus policies', () => {
  it('are all accepted (they are valid Kyverno policies); warnings allowed', () => {
    expect(existsSync(CORPUS), MISSING).toBe(true);
    const rejected: string[] = [];
    let policies = 0;
    let exceptions = 0;
    for (const file of yamlFiles(CORPUS)) {
      const name = relative(CORPUS, file);
      const loaded = loadPolicyDocuments(readFileSync(file, 'utf8'), name);
      for (const policy of loaded.policies) {
        policies++;
        rejected.push(...validatePolicy(policy, { file: name }).filter(isError).map(formatDiagnostic));
      }
      for (const exception of loaded.exceptions) {
        exceptions++;
        rejected.push(...validatePolicyException(exception, { file: name }).filter(isError).map(formatDiagnostic));
      }
    }
    expect(policies).toBeGreaterThan(100);
    expect(exceptions).toBeGreaterThan(0);
    expect(rejected, rejected.join('\n')).toEqual([]);
  });
});
