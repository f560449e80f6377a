import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine, loadPolicyDocuments, type CompiledPolicy, type KubeObject, type ResourceRequest } from '@edict/engine';
import { measure, type Measurement } from './harness';
import { sharedDir } from './shared-dir';

const REVIEW_FILE = join(process.cwd(), 'bench', 'fixtures', 'pod-create-review.json');

/** The 17 Pod Security policies Kyverno's published admission figures use. */
export function loadPssPolicies(engine: Engine): CompiledPolicy[] {
  const dir = join(sharedDir(), 'bench', 'pss');
  const files = readdirSync(dir).filter((file) => file.endsWith('.yaml'));
  return files.flatMap((file) => {
    const { policies, errors } = loadPolicyDocuments(readFileSync(join(dir, file), 'utf8'), file);
    if (errors.length > 0) throw new Error(`${file}: ${errors.map((error) => error.message).join('; ')}`);
    return policies.map((policy) => engine.compile(policy));
  });
}

export function reviewText(): string {
  return readFileSync(REVIEW_FILE, 'utf8');
}

/** Builds the engine request from a parsed AdmissionReview, as the webhook will. */
export function requestFromReview(review: { request: Record<string, unknown> }): ResourceRequest {
  const request = review.request as {
    object: KubeObject;
    operation: ResourceRequest['operation'];
    userInfo: NonNullable<ResourceRequest['user']>['userInfo'];
  };
  return {
    resource: request.object,
    operation: request.operation,
    user: { userInfo: request.userInfo, roles: [], clusterRoles: [] },
    admissionRequest: review.request as ResourceRequest['admissionRequest'],
  };
}

/**
 * Validate pipeline for one Pod CREATE: parse the AdmissionReview, run the 17 policies. The baseline
 * is JSON.parse of the same review alone, measured in the same run.
 */
export async function runPssSuite(): Promise<{ baseline: Measurement; rows: Measurement[]; rules: number }> {
  const engine = new Engine();
  const policies = loadPssPolicies(engine);
  const text = reviewText();
  const sample = requestFromReview(JSON.parse(text));
  let rules = 0;
  for (const policy of policies) rules += (await engine.validate(policy, sample)).rules.length;

  const baseline = await measure('JSON.parse(review)', () => JSON.parse(text));
  const validate = await measure(`parse + validate (${policies.length} PSS policies)`, async () => {
    const request = requestFromReview(JSON.parse(text));
    for (const policy of policies) await engine.validate(policy, request);
  });
  return { baseline, rows: [baseline, validate], rules };
}
