/**
 * The leader's side: reads both Secrets, decides (plan.ts), writes with optimistic concurrency.
 * A 409 means another writer (a second leader, a human) got there first: re-read and decide again,
 * so two renewers running at once end with one CA and one leaf. Calls are serialised in-process.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  CA_ADDED_AT_ANNOTATION,
  CERT_CLOCK,
  CERT_LEADER_GATE,
  CERT_OPTIONS,
  CERT_SECRET_STORE,
  TLS_CERT_KEY,
  TLS_PRIVATE_KEY_KEY,
  TLS_SECRET_TYPE,
} from '../cert.constants';
import type { ResolvedCertOptions } from '../cert.options';
import { importSigningKey } from '../crypto/key-algorithm';
import { issueCa, issueLeaf } from '../crypto/issue';
import { joinCertificates } from '../crypto/pem';
import type { LeaderGate } from '@edict/leader';
import type { CertClock } from '../cert-clock';
import { SecretConflictError, type SecretStore, type SecretWrite, type StoredSecret } from '../secrets/secret-store';
import { readCaState, readLeafState, type CaState } from './cert-state';
import { nextCheckAt, planCa, planLeaf } from './plan';

export type CaOutcome = 'created' | 'rotated' | 'pruned' | 'unchanged' | 'blocked';
export type LeafOutcome = 'issued' | 'unchanged' | 'deferred' | 'blocked';

export interface ReconcileResult {
  /** Set when nothing was even read because this replica may not write. */
  readonly skipped?: 'not-leader';
  readonly ca: CaOutcome;
  readonly leaf: LeafOutcome;
  readonly reasons: readonly string[];
  /** Lost write races (409s) that led to a re-read. */
  readonly conflicts: number;
  /** When a decision may change next without any write: schedule a reconcile by then. */
  readonly nextCheckAt?: Date;
}

export interface ReconcileRequest {
  /** Rotate even if nothing is due: a new CA (then the leaf moves after propagation) or a new leaf. */
  readonly force?: 'ca' | 'leaf';
}

const MAX_ATTEMPTS = 5;

export class CertRenewalError extends Error {
  override readonly name = 'CertRenewalError';
}

@Injectable()
export class CertRenewer {
  private readonly logger = new Logger('CertRenewer');
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    @Inject(CERT_OPTIONS) private readonly options: ResolvedCertOptions,
    @Inject(CERT_SECRET_STORE) private readonly store: SecretStore,
    @Inject(CERT_LEADER_GATE) private readonly gate: LeaderGate,
    @Inject(CERT_CLOCK) private readonly clock: CertClock,
  ) {}

  /** Brings the Secrets to the desired state; safe to call any time, from any replica. */
  reconcile(request: ReconcileRequest = {}): Promise<ReconcileResult> {
    const run = this.queue.then(() => this.reconcileNow(request));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async reconcileNow(request: ReconcileRequest): Promise<ReconcileResult> {
    if (!this.gate.isLeader())
      return { skipped: 'not-leader', ca: 'unchanged', leaf: 'unchanged', reasons: [], conflicts: 0 };
    let conflicts = 0;
    let force = request.force;
    // Outcomes of an attempt that wrote and then lost a later race still happened.
    let wroteCa: CaOutcome | undefined;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      try {
        const result = await this.attempt(force);
        return { ...result, ca: result.ca === 'unchanged' && wroteCa ? wroteCa : result.ca, conflicts };
      } catch (error) {
        if (!(error instanceof ConflictAfterWrite) && !(error instanceof SecretConflictError)) throw error;
        conflicts++;
        if (error instanceof ConflictAfterWrite) {
          wroteCa = error.ca ?? wroteCa;
          force = undefined;
        }
        this.logger.debug(`lost a write race (${error.message}); re-reading`);
        if (!this.gate.isLeader()) {
          return { skipped: 'not-leader', ca: wroteCa ?? 'unchanged', leaf: 'unchanged', reasons: [], conflicts };
        }
      }
    }
    throw new CertRenewalError(`gave up after ${MAX_ATTEMPTS} write conflicts on the certificate secrets`);
  }

  private async attempt(force: ReconcileRequest['force']): Promise<Omit<ReconcileResult, 'conflicts'>> {
    const now = this.clock.now();
    const [caSecret, leafSecret] = await Promise.all([
      this.store.read(this.options.caSecretName),
      this.store.read(this.options.pairSecretName),
    ]);
    const reasons: string[] = [];
    let ca = readCaState(caSecret, this.options.managedBy);
    let caDecision = planCa(ca, now, this.options);
    if (force === 'ca' && caDecision.action === 'keep' && ca.managed) {
      caDecision = {
        action: 'rotate',
        reason: 'rotation requested',
        keep: ca.bundle.filter((c) => new Date(c.validTo) > now),
      };
    }
    reasons.push(`ca: ${caDecision.reason}`);
    let caOutcome: CaOutcome = 'unchanged';
    if (caDecision.action === 'create' || caDecision.action === 'rotate' || caDecision.action === 'prune') {
      const written = await this.writeCa(ca, caDecision.action, caDecision.keep, now);
      ca = readCaState(written, this.options.managedBy);
      caOutcome = caDecision.action === 'create' ? 'created' : caDecision.action === 'rotate' ? 'rotated' : 'pruned';
    } else if (caDecision.action === 'blocked') {
      caOutcome = 'blocked';
      this.logger.warn(caDecision.reason);
    }

    const leaf = readLeafState(leafSecret, this.options.managedBy);
    let leafDecision = planLeaf(leaf, ca, now, this.options);
    if (force === 'leaf' && leafDecision.action === 'keep' && leaf.managed && ca.signer) {
      leafDecision = { action: 'issue', reason: 'rotation requested' };
    }
    reasons.push(`leaf: ${leafDecision.reason}`);
    let leafOutcome: LeafOutcome = 'unchanged';
    let leafAfter = leaf;
    if (leafDecision.action === 'issue') {
      try {
        leafAfter = readLeafState(await this.writeLeaf(ca, leaf.secret, now), this.options.managedBy);
      } catch (error) {
        if (error instanceof SecretConflictError && caOutcome !== 'unchanged' && caOutcome !== 'blocked') {
          throw new ConflictAfterWrite(error.message, caOutcome);
        }
        throw error;
      }
      leafOutcome = 'issued';
    } else if (leafDecision.action === 'defer') {
      leafOutcome = 'deferred';
    } else if (leafDecision.action === 'blocked') {
      leafOutcome = 'blocked';
      this.logger.warn(leafDecision.reason);
    }
    if (caOutcome !== 'unchanged' || leafOutcome === 'issued') {
      this.logger.log(`certificates: CA ${caOutcome}, serving certificate ${leafOutcome} (${reasons.join('; ')})`);
    }
    const next = nextCheckAt(ca, leafAfter, now, this.options);
    return { ca: caOutcome, leaf: leafOutcome, reasons, ...(next ? { nextCheckAt: next } : {}) };
  }

  private async writeCa(
    state: CaState,
    action: 'create' | 'rotate' | 'prune',
    keep: CaState['bundle'],
    now: Date,
  ): Promise<StoredSecret> {
    let bundle = [...keep];
    let keyPem = state.signerKeyPem ?? '';
    let addedAt = state.secret?.annotations[CA_ADDED_AT_ANNOTATION];
    if (action !== 'prune') {
      const issued = await issueCa({
        commonName: this.options.commonName,
        algorithm: this.options.keyAlgorithm,
        now,
        validityMs: this.options.caValidityMs,
        clockSkewMs: this.options.clockSkewMs,
      });
      bundle = [...bundle, issued.certificate];
      keyPem = issued.privateKeyPem;
      addedAt = now.toISOString();
    }
    return this.write(state.secret, {
      name: this.options.caSecretName,
      type: TLS_SECRET_TYPE,
      labels: { ...state.secret?.labels, [this.options.managedBy.key]: this.options.managedBy.value },
      annotations: { ...state.secret?.annotations, ...(addedAt ? { [CA_ADDED_AT_ANNOTATION]: addedAt } : {}) },
      data: { [TLS_CERT_KEY]: joinCertificates(bundle), [TLS_PRIVATE_KEY_KEY]: keyPem },
    });
  }

  private async writeLeaf(ca: CaState, current: StoredSecret | undefined, now: Date): Promise<StoredSecret> {
    const signer = await importSigningKey(ca.signerKeyPem!);
    const issued = await issueLeaf({
      commonName: this.options.commonName,
      algorithm: this.options.keyAlgorithm,
      now,
      validityMs: this.options.leafValidityMs,
      clockSkewMs: this.options.clockSkewMs,
      dnsNames: this.options.dnsNames,
      ipAddresses: this.options.ipAddresses,
      issuer: ca.signer!,
      issuerKey: signer.key,
      issuerAlgorithm: signer.algorithm,
    });
    return this.write(current, {
      name: this.options.pairSecretName,
      type: TLS_SECRET_TYPE,
      labels: { ...current?.labels, [this.options.managedBy.key]: this.options.managedBy.value },
      annotations: { ...current?.annotations },
      data: { [TLS_CERT_KEY]: issued.certificatePem, [TLS_PRIVATE_KEY_KEY]: issued.privateKeyPem },
    });
  }

  private write(current: StoredSecret | undefined, secret: SecretWrite): Promise<StoredSecret> {
    // Leadership can end while certificates are generated; not fencing, but it narrows the window.
    if (!this.gate.isLeader()) throw new SecretConflictError('leadership lost before writing');
    return current ? this.store.replace(secret, current.resourceVersion) : this.store.create(secret);
  }
}

/** The CA write succeeded but the leaf write lost a race: retry, remembering the CA outcome. */
class ConflictAfterWrite extends Error {
  constructor(
    message: string,
    readonly ca: CaOutcome,
  ) {
    super(message);
  }
}
