import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine, loadPolicyDocuments, type CompiledPolicy } from '@edict/engine';
import type { AdmissionRequest, AdmissionReview } from '../review/types';

const ROOT = join(__dirname, '../../../..');

/** The realistic Pod CREATE review the benchmark uses, as a fresh copy each call. */
export function podCreateReview(): AdmissionReview & { request: AdmissionRequest } {
  const text = readFileSync(join(ROOT, 'bench/fixtures/pod-create-review.json'), 'utf8');
  return JSON.parse(text) as AdmissionReview & { request: AdmissionRequest };
}

export function compilePolicies(engine: Engine, yaml: string): CompiledPolicy[] {
  const loaded = loadPolicyDocuments(yaml, 'test.yaml');
  if (loaded.errors.length > 0) throw new Error(loaded.errors.map((error) => error.message).join('; '));
  return loaded.policies.map((policy) => engine.compile(policy));
}

export function pssPolicies(engine: Engine): CompiledPolicy[] {
  const dir = join(process.env['EDICT_SHARED_DIR'] ?? join(ROOT, '../shared'), 'bench/pss');
  if (!existsSync(dir)) {
    throw new Error(
      `the benchmark's Pod Security policies are not at ${dir}: put them at ../shared/bench/pss beside the repository, or set EDICT_SHARED_DIR`,
    );
  }
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .flatMap((file) => compilePolicies(engine, readFileSync(join(dir, file), 'utf8')));
}
