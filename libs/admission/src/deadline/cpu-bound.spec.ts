import { Engine } from '@edict/engine';
import { type JsonObject, type KubeObject } from '@edict/foundation';
import { describe, expect, it } from 'vitest';
import { parseAdmissionConfig } from '../config/parse-config';
import { toResourceRequest } from '../request/to-resource-request';
import { compilePolicies, podCreateReview } from '../testing/fixtures';
import { validateAdmission } from '../validate/validate-admission';
import { decideWithin, timeoutDecision } from './deadline';

const engine = new Engine();
const config = parseAdmissionConfig({}, { controllerNamespace: 'edict' }).config;

/** An Enforce policy whose deny condition runs `key` once per container. */
function perContainer(key: string, failurePolicy: 'Fail' | 'Ignore' = 'Fail') {
  return compilePolicies(
    engine,
    `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: per-container
spec:
  failurePolicy: ${failurePolicy}
  rules:
    - name: scan
      match:
        any:
          - resources:
              kinds: [Pod]
      validate:
        failureAction: Enforce
        foreach:
          - list: request.object.spec.containers
            deny:
              conditions:
                any:
                  - key: "${key}"
                    operator: Equals
                    value: true
`,
  );
}

/** The test Pod with `count` containers working in `workingDir`. */
function podWith(count: number, workingDir: string) {
  const review = podCreateReview();
  const pod = review.request.object as KubeObject & { spec: JsonObject };
  pod.spec.containers = Array.from({ length: count }, (_, i) => ({ name: `c${i}`, image: 'nginx:1.27', workingDir }));
  return toResourceRequest(review.request);
}

describe('the review deadline on CPU-bound evaluation', () => {
  // Linear but heavy: thousands of containers, each splitting a long string into characters and
  // scanning it; unbounded, this takes seconds of CPU in which no timer can fire.
  const heavy = podWith(20_000, 'a'.repeat(5_000));
  const scan = "{{ regex_match('^(a|b)*c$', element.workingDir) || contains(split(element.workingDir, ''), 'c') }}";

  it('answers with the timeout decision of the failure policy, not after the evaluation', async () => {
    const failing = perContainer(scan, 'Fail');
    const failed = await decideWithin(
      (deadline) => validateAdmission(heavy, failing, engine, config, { failurePolicy: 'Fail', deadline }),
      200,
      'Fail',
    );
    expect(failed).toEqual({ decision: timeoutDecision('Fail', 200), timedOut: true });

    const ignoring = perContainer(scan, 'Ignore');
    const ignored = await decideWithin(
      (deadline) => validateAdmission(heavy, ignoring, engine, config, { failurePolicy: 'Ignore', deadline }),
      200,
      'Ignore',
    );
    expect(ignored).toEqual({ decision: { allowed: true }, timedOut: true });
  });

  it('decides normally when the same policy has little to do', async () => {
    const failing = perContainer(scan, 'Fail');
    const result = await decideWithin(
      (deadline) => validateAdmission(podWith(3, '/srv'), failing, engine, config, { failurePolicy: 'Fail', deadline }),
      5_000,
      'Fail',
    );
    expect(result).toMatchObject({ timedOut: false, decision: { allowed: true } });
  });

  it('answers a catastrophic regular expression on a crafted input (RE2 is linear)', async () => {
    const crafted = podWith(1, 'a'.repeat(5_000) + '!');
    const catastrophic = perContainer("{{ regex_match('(a+)+$', element.workingDir) }}");
    const result = await decideWithin(
      (deadline) => validateAdmission(crafted, catastrophic, engine, config, { failurePolicy: 'Fail', deadline }),
      9_000,
      'Fail',
    );
    expect(result).toMatchObject({ timedOut: false, decision: { allowed: true } });
  });
});
