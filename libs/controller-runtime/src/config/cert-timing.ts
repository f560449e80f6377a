/**
 * How a webhook server's certificate timing settings must relate to each other. Each setting is
 * checked on its own by its decorators; these are the checks across them, so a configuration that
 * would serve an expired certificate, or move to a new CA before clients hold it, fails at startup.
 *
 * The leader renews only at a check (every `certCheckIntervalMs`) or on a Secret event. A serving
 * certificate renewal is due `renewBeforeMs` before its expiry; a new CA is added `renewBeforeMs`
 * before the current one expires, and the serving certificate moves to it at the first check once
 * the CA has sat `caPropagationMs` in the bundle. That move must happen before the old CA expires:
 * in the worst case one interval late to see the CA is due, then propagation, then one more interval.
 */

export interface CertTiming {
  readonly caValidityMs: number;
  readonly tlsValidityMs: number;
  readonly renewBeforeMs: number;
  readonly caPropagationMs: number;
  readonly certCheckIntervalMs: number;
}

export type CertTimingField = keyof CertTiming;

export interface CertTimingProblem {
  readonly field: CertTimingField;
  readonly message: string;
}

/**
 * The problems between the settings, each on the field to change. Settings that are not numbers
 * are skipped here (their own checks report them).
 */
export function certTimingProblems(timing: Partial<Record<CertTimingField, unknown>>): CertTimingProblem[] {
  const number = (field: CertTimingField) => {
    const value = timing[field];
    return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  };
  const ca = number('caValidityMs');
  const tls = number('tlsValidityMs');
  const renew = number('renewBeforeMs');
  const propagation = number('caPropagationMs');
  const interval = number('certCheckIntervalMs');
  const problems: CertTimingProblem[] = [];
  if (tls !== undefined && ca !== undefined && tls > ca) {
    problems.push({
      field: 'tlsValidityMs',
      message: `must not exceed caValidityMs (${tls} > ${ca}): a serving certificate never outlives the CA that signs it`,
    });
  }
  if (renew !== undefined && tls !== undefined && renew >= tls) {
    problems.push({
      field: 'renewBeforeMs',
      message: `must be less than tlsValidityMs (${renew} >= ${tls}): every serving certificate would be due for renewal as soon as it is issued`,
    });
  }
  if (renew !== undefined && ca !== undefined && renew >= ca) {
    problems.push({
      field: 'renewBeforeMs',
      message: `must be less than caValidityMs (${renew} >= ${ca}): every CA would be due for renewal as soon as it is created`,
    });
  }
  if (renew !== undefined && propagation !== undefined && interval !== undefined) {
    const needed = propagation + 2 * interval;
    if (renew <= needed) {
      problems.push({
        field: 'renewBeforeMs',
        message:
          `must exceed caPropagationMs + 2 x certCheckIntervalMs (${renew} <= ${propagation} + 2 x ${interval}): ` +
          'the serving certificate could still be signed by the old CA when it expires',
      });
    }
  }
  return problems;
}

/** The problems of one field, joined; undefined when it has none. */
export function certTimingProblemOf(
  field: CertTimingField,
  timing: Partial<Record<CertTimingField, unknown>>,
): string | undefined {
  const messages = certTimingProblems(timing)
    .filter((problem) => problem.field === field)
    .map((problem) => problem.message);
  return messages.length > 0 ? messages.join('; ') : undefined;
}
