/**
 * The `certs` scenario's timing and its figures, as pure functions of what was observed: when each
 * serving certificate and CA was written (Secret watch), what each replica served over TLS (sampled),
 * and whether every webhook configuration's caBundle then held the CA that signed it.
 */

/** Compressed lifetimes that keep the defaults' proportions, so a run sees leaf and CA rotations in minutes. */
export interface CertScenarioTiming {
  readonly caValidityMs: number;
  readonly tlsValidityMs: number;
  readonly renewBeforeMs: number;
  readonly caPropagationMs: number;
  readonly certCheckIntervalMs: number;
}

/**
 * CA 90 s, leaf 36 s, renewal 18 s before expiry, propagation 6 s, checks every second: leaves are
 * renewed about every 18 s; the CA at 72 s, and the leaf moves to it 6 s later.
 */
export const CERT_SCENARIO_TIMING: CertScenarioTiming = {
  caValidityMs: 90_000,
  tlsValidityMs: 36_000,
  renewBeforeMs: 18_000,
  caPropagationMs: 6_000,
  certCheckIntervalMs: 1_000,
};

/** The controller variables that set `timing`. */
export function certTimingEnvironment(timing: CertScenarioTiming): Record<string, string> {
  return {
    EDICT_CA_VALIDITY_MS: String(timing.caValidityMs),
    EDICT_TLS_VALIDITY_MS: String(timing.tlsValidityMs),
    EDICT_RENEW_BEFORE_MS: String(timing.renewBeforeMs),
    EDICT_CA_PROPAGATION_MS: String(timing.caPropagationMs),
    EDICT_CERT_CHECK_INTERVAL_MS: String(timing.certCheckIntervalMs),
  };
}

/** A serving certificate as written to the pair Secret (times: ms since the epoch). */
export interface LeafWrite {
  readonly at: number;
  readonly serial: string;
  /** Serial of the CA that signed it (undefined when no known CA did). */
  readonly caSerial: string | undefined;
  readonly notAfter: number;
}

/** A CA added to the CA Secret's bundle. */
export interface CaWrite {
  readonly at: number;
  readonly serial: string;
  readonly notAfter: number;
}

/** One TLS handshake with one replica. */
export interface ServedSample {
  readonly at: number;
  readonly replica: string;
  /** The served certificate's serial; undefined when the handshake failed. */
  readonly serial: string | undefined;
  /** The served certificate was past its notAfter. */
  readonly expired: boolean;
  /** Every webhook configuration's caBundle (as last seen) held the CA that signed it. */
  readonly trusted: boolean;
  /** When not trusted: the configuration that lacked the CA, or why there was none to check. */
  readonly untrustedBecause?: string;
}

export type RotationKind = 'first' | 'leaf' | 'leaf to new CA';

export interface RotationFigure {
  readonly kind: RotationKind;
  readonly serial: string;
  /** ms since the run's start. */
  readonly writtenAtMs: number;
  /** For a move to a new CA: how long that CA had been in the bundle when the leaf was written. */
  readonly caAgeMs?: number;
  /** Per replica: ms from the write to the first sample serving it (undefined: never seen serving it). */
  readonly servedAfterMs: Readonly<Record<string, number | undefined>>;
}

/** Each leaf write and when each of `replicas` was first seen serving it. */
export function rotationFigures(
  start: number,
  leaves: readonly LeafWrite[],
  cas: readonly CaWrite[],
  samples: readonly ServedSample[],
  replicas: readonly string[],
): RotationFigure[] {
  return leaves.map((leaf, index) => {
    const previous = leaves[index - 1];
    const kind: RotationKind = !previous ? 'first' : previous.caSerial === leaf.caSerial ? 'leaf' : 'leaf to new CA';
    const ca = cas.find((entry) => entry.serial === leaf.caSerial);
    const servedAfterMs: Record<string, number | undefined> = {};
    for (const replica of replicas) {
      // The watch that timed the write may lag a replica's own: a sample before it counts as 0.
      const seen = samples.find((sample) => sample.replica === replica && sample.serial === leaf.serial);
      servedAfterMs[replica] = seen ? Math.max(0, seen.at - leaf.at) : undefined;
    }
    return {
      kind,
      serial: leaf.serial,
      writtenAtMs: leaf.at - start,
      ...(kind === 'leaf to new CA' && ca ? { caAgeMs: leaf.at - ca.at } : {}),
      servedAfterMs,
    };
  });
}

export interface ServingTally {
  readonly samples: number;
  /** Handshakes that failed (a replica starting, or refusing). */
  readonly unanswered: number;
  /** Handshakes that got a certificate past its notAfter. */
  readonly expired: number;
  /** Handshakes whose certificate's CA was missing from some webhook configuration's caBundle. */
  readonly untrusted: number;
  /** The first untrusted or expired one, if any: ms since the start, the replica and why. */
  readonly firstBad?: { readonly atMs: number; readonly replica: string; readonly why: string };
}

/** What the samples in [from, to) add up to. */
export function servingTally(start: number, samples: readonly ServedSample[], from: number, to: number): ServingTally {
  const window = samples.filter((sample) => sample.at >= from && sample.at < to);
  const answered = window.filter((sample) => sample.serial !== undefined);
  const bad = answered.find((sample) => sample.expired || !sample.trusted);
  return {
    samples: window.length,
    unanswered: window.length - answered.length,
    expired: answered.filter((sample) => sample.expired).length,
    untrusted: answered.filter((sample) => !sample.trusted).length,
    ...(bad
      ? {
          firstBad: {
            atMs: bad.at - start,
            replica: bad.replica,
            why: bad.expired ? 'expired' : (bad.untrustedBecause ?? 'untrusted'),
          },
        }
      : {}),
  };
}

/**
 * ms from `since` to the first sample at or after it that served a valid certificate (unexpired,
 * its CA in every caBundle), from any replica, and from every one of `replicas`.
 */
export function timeToValid(
  samples: readonly ServedSample[],
  since: number,
  replicas: readonly string[],
): { first?: number; all?: number } {
  const valid = samples.filter(
    (sample) => sample.at >= since && sample.serial !== undefined && !sample.expired && sample.trusted,
  );
  const perReplica = replicas.map((replica) => valid.find((sample) => sample.replica === replica)?.at);
  const first = valid[0]?.at;
  const all = perReplica.every((at) => at !== undefined) ? Math.max(...(perReplica as number[])) : undefined;
  return {
    ...(first !== undefined ? { first: first - since } : {}),
    ...(all !== undefined && replicas.length > 0 ? { all: all - since } : {}),
  };
}

/**
 * Whether the run has seen what it came for: a CA rotation, the leaf moved to that CA, and that
 * leaf and one renewed under an unchanged CA each served by every replica.
 */
export function rotationsComplete(figures: readonly RotationFigure[]): boolean {
  const servedByAll = (figure: RotationFigure) => Object.values(figure.servedAfterMs).every((ms) => ms !== undefined);
  return (
    figures.some((figure) => figure.kind === 'leaf' && servedByAll(figure)) &&
    figures.some((figure) => figure.kind === 'leaf to new CA' && servedByAll(figure))
  );
}
