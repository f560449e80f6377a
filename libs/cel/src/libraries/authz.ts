import type { Environment } from '@marcbachmann/cel-js';
import type {
  AccessReviewDecision,
  AccessReviewRequest,
  AccessReviewSubject,
  ResourceAttributes,
} from '../access-review';
import { CelLimitExceeded } from '../meter';
import { errorMessage } from '@edict/foundation';

/**
 * The access reviews of one rule evaluation. CEL evaluation here is synchronous (it is metered step
 * by step), while reviews go to the API server: a check whose answer is not known yet is recorded
 * and fails the expression with AccessReviewPending; the caller makes the pending reviews and
 * evaluates again. An expression that succeeds despite a pending check did not depend on it (CEL's
 * `||`, `&&` and quantifiers absorb errors only when the other side decides).
 */
export class AccessReviews {
  private readonly decisions = new Map<string, AccessReviewDecision>();
  private readonly waiting = new Map<string, AccessReviewRequest>();
  private tooMany: CelLimitExceeded | undefined;

  constructor(private readonly maxChecks: number) {}

  /** Set once more checks were asked for than allowed (sticky: CEL may absorb the error). */
  get exceeded(): CelLimitExceeded | undefined {
    return this.tooMany;
  }

  get pending(): readonly AccessReviewRequest[] {
    return [...this.waiting.values()];
  }

  decide(request: AccessReviewRequest): AccessReviewDecision {
    const key = JSON.stringify(request);
    const known = this.decisions.get(key);
    if (known) return known;
    if (!this.waiting.has(key)) {
      if (this.decisions.size + this.waiting.size >= this.maxChecks) {
        this.tooMany ??= new CelLimitExceeded(`CEL authorizer checks exceed the limit of ${this.maxChecks} per rule`);
        throw this.tooMany;
      }
      this.waiting.set(key, request);
    }
    throw new AccessReviewPending();
  }

  /** Makes every pending review with `review` (an error becomes an errored decision). */
  async resolve(review: (request: AccessReviewRequest) => Promise<AccessReviewDecision>): Promise<void> {
    for (const [key, request] of this.waiting) {
      let decision: AccessReviewDecision;
      try {
        decision = await review(request);
      } catch (error) {
        decision = { allowed: false, evaluationError: errorMessage(error) };
      }
      this.decisions.set(key, decision);
    }
    this.waiting.clear();
  }
}

/** An authorizer check whose answer is not known yet (see AccessReviews). */
export class AccessReviewPending extends Error {
  override readonly name = 'AccessReviewPending';
  constructor() {
    super('authorization check pending');
  }
}

export class CelAuthorizer {
  constructor(
    readonly reviews: AccessReviews,
    readonly subject: AccessReviewSubject,
    /** The request's own resource, for `authorizer.requestResource`. */
    readonly requestResource?: CelResourceCheck,
  ) {}
}

export class CelGroupCheck {
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly group: string,
  ) {}
}

export class CelResourceCheck {
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly attributes: ResourceAttributes,
  ) {}

  with(change: Partial<ResourceAttributes>): CelResourceCheck {
    return new CelResourceCheck(this.authorizer, { ...this.attributes, ...change });
  }
}

export class CelPathCheck {
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly path: string,
  ) {}
}

export class CelDecision {
  constructor(readonly decision: AccessReviewDecision) {}
}

const NS = 'kubernetes.authorization';
export const AUTHORIZER_TYPE = `${NS}.Authorizer`;

/**
 * Kubernetes' CEL authz library: `authorizer.group(g).resource(r).namespace(n).name(x).check(verb)`,
 * `authorizer.path(p).check(verb)`, `authorizer.serviceAccount(ns, name)`,
 * `authorizer.requestResource` and the Decision accessors.
 */
export function registerAuthz(env: Environment): void {
  env.registerType(`${NS}.ResourceCheck`, CelResourceCheck);
  env.registerType(AUTHORIZER_TYPE, {
    ctor: CelAuthorizer,
    fields: { requestResource: `${NS}.ResourceCheck` },
  });
  env.registerType(`${NS}.GroupCheck`, CelGroupCheck);
  env.registerType(`${NS}.PathCheck`, CelPathCheck);
  env.registerType(`${NS}.Decision`, CelDecision);
  const fn = (signature: string, handler: (...args: never[]) => unknown): void => {
    env.registerFunction(`${NS}.${signature}`, handler as (...args: unknown[]) => unknown);
  };
  fn(`Authorizer.group(string): ${NS}.GroupCheck`, (a: CelAuthorizer, group: string) => new CelGroupCheck(a, group));
  fn(`Authorizer.path(string): ${NS}.PathCheck`, (a: CelAuthorizer, path: string) => new CelPathCheck(a, path));
  fn(
    `Authorizer.serviceAccount(string, string): ${AUTHORIZER_TYPE}`,
    (a: CelAuthorizer, ns: string, name: string) =>
      new CelAuthorizer(a.reviews, {
        user: `system:serviceaccount:${ns}:${name}`,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`],
      }),
  );
  fn(
    `GroupCheck.resource(string): ${NS}.ResourceCheck`,
    (g: CelGroupCheck, resource: string) => new CelResourceCheck(g.authorizer, { group: g.group, resource }),
  );
  fn(`ResourceCheck.subresource(string): ${NS}.ResourceCheck`, (r: CelResourceCheck, subresource: string) =>
    r.with({ subresource }),
  );
  fn(`ResourceCheck.namespace(string): ${NS}.ResourceCheck`, (r: CelResourceCheck, namespace: string) =>
    r.with({ namespace }),
  );
  fn(`ResourceCheck.name(string): ${NS}.ResourceCheck`, (r: CelResourceCheck, name: string) => r.with({ name }));
  fn(`ResourceCheck.check(string): ${NS}.Decision`, (r: CelResourceCheck, verb: string) =>
    decide(r.authorizer, { resourceAttributes: { ...r.attributes, verb } }),
  );
  fn(`PathCheck.check(string): ${NS}.Decision`, (p: CelPathCheck, verb: string) =>
    decide(p.authorizer, { nonResourceAttributes: { path: p.path, verb } }),
  );
  fn('Decision.allowed(): bool', (d: CelDecision) => d.decision.allowed && !d.decision.evaluationError);
  fn('Decision.reason(): string', (d: CelDecision) => d.decision.reason ?? '');
  fn('Decision.errored(): bool', (d: CelDecision) => Boolean(d.decision.evaluationError));
  fn('Decision.error(): string', (d: CelDecision) => d.decision.evaluationError ?? '');
}

function decide(
  authorizer: CelAuthorizer,
  question: Omit<AccessReviewRequest, keyof AccessReviewSubject>,
): CelDecision {
  return new CelDecision(authorizer.reviews.decide({ ...authorizer.subject, ...question }));
}
