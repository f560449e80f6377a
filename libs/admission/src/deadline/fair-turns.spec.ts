import { Engine, type CompiledPolicy } from '@edict/engine';
import { EvaluationDeadlineExceeded } from '@edict/foundation';
import { describe, expect, it } from 'vitest';
import { parseAdmissionConfig } from '../config/parse-config';
import { toResourceRequest } from '../request/to-resource-request';
import type { AdmissionRequest } from '../review/types';
import { compilePolicies } from '../testing/fixtures';
import { REQUIRE_OWNER_ENFORCE } from '../testing/policies';
import { bigPod, nestedForeachPolicy } from '../testing/slow-policy';
import { validateAdmission } from '../validate/validate-admission';
import { FairTurns } from './fair-turns';

const engine = new Engine();
const config = parseAdmissionConfig({}, { controllerNamespace: 'edict' }).config;

function podRequest(pod: { metadata: { namespace: string } }) {
  return toResourceRequest({
    uid: 'u',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    namespace: pod.metadata.namespace,
    operation: 'CREATE',
    userInfo: {},
    object: pod,
  } as unknown as AdmissionRequest);
}

describe('FairTurns', () => {
  it('gives waiting evaluations turns in rotation between tenants, oldest first within one', async () => {
    const turns = new FairTurns(0);
    const far = performance.now() + 60_000;
    const order: string[] = [];
    const wait = (tenant: string, label: string) =>
      turns.deadline(far, tenant).yieldTurn!()!.then(() => void order.push(label));
    await Promise.all([wait('a', 'a1'), wait('a', 'a2'), wait('a', 'a3'), wait('b', 'b1'), wait('c', 'c1')]);
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'a3']);
    expect(turns.waitingCount()).toBe(0);
  });

  it('lets an evaluation go on without waiting while its turn lasts', () => {
    const turns = new FairTurns(60_000);
    const deadline = turns.deadline(performance.now() + 1_000, 'a');
    expect(deadline.yieldTurn!()).toBeUndefined();
    expect(deadline.expired()).toBe(false);
    expect(deadline.remainingMs!()).toBeGreaterThan(0);
  });

  describe("while a tenant's slow policy runs (nested foreach over 250-container Pods)", () => {
    const slow: CompiledPolicy[] = compilePolicies(engine, JSON.stringify(nestedForeachPolicy('pairs', 'team-a')));
    const owner: CompiledPolicy[] = compilePolicies(engine, REQUIRE_OWNER_ENFORCE);

    it("decides another namespace's review in a turn or two and keeps timers firing; the slow ones end at their deadline", async () => {
      const turns = new FairTurns();
      const at = performance.now() + 3_000;
      const slowReviews = [1, 2].map((i) => {
        const request = podRequest(bigPod(`big-${i}`, 'team-a', 250));
        const deadline = turns.deadline(at, 'team-a');
        return validateAdmission(request, slow, engine, config, { failurePolicy: 'Fail', deadline }).then(
          () => 'finished',
          (error: unknown) => (error instanceof EvaluationDeadlineExceeded ? 'deadline' : String(error)),
        );
      });
      let slowDone = false;
      void Promise.all(slowReviews).then(() => (slowDone = true));

      // A timer set now fires while the slow reviews run: the event loop is not held.
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(slowDone).toBe(false);

      const victim = {
        ...bigPod('small', 'team-b', 1),
        metadata: { name: 'small', namespace: 'team-b', labels: { owner: 'b' } },
      };
      const decided = await validateAdmission(podRequest(victim), owner, engine, config, {
        failurePolicy: 'Fail',
        deadline: turns.deadline(performance.now() + 3_000, 'team-b'),
      });
      expect(decided.decision.allowed).toBe(true);
      // Decided while the tenant's reviews still run, not queued behind them.
      expect(slowDone).toBe(false);

      expect(await Promise.all(slowReviews)).toEqual(['deadline', 'deadline']);
    }, 30_000);
  });

  it('lets the audits after the answer take turns without an end: others run meanwhile, and the audits finish', async () => {
    const audit = JSON.parse(JSON.stringify(nestedForeachPolicy('pairs-audit', 'team-a'))) as {
      spec: { rules: Array<{ validate: { failureAction: string } }> };
    };
    audit.spec.rules[0]!.validate.failureAction = 'Audit';
    const audits = compilePolicies(engine, JSON.stringify(audit));
    const turns = new FairTurns();
    const outcome = await validateAdmission(podRequest(bigPod('mid', 'team-a', 100)), audits, engine, config, {
      failurePolicy: 'Fail',
      auditDeadline: turns.turnsOnly('team-a'),
    });
    expect(outcome.decision.allowed).toBe(true);
    let ticks = 0;
    const ticking = setInterval(() => (ticks += 1), 1);
    const started = performance.now();
    const after = await outcome.after!();
    const tookMs = performance.now() - started;
    clearInterval(ticking);
    expect(after.auditResponses.map((response) => response.rules.map((rule) => rule.status))).toEqual([['pass']]);
    // A timer kept firing while the audit ran (at least one per 100 ms of it).
    expect(ticks).toBeGreaterThan(tookMs / 100);
  }, 60_000);
});
