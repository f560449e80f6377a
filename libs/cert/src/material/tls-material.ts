/**
 * Every replica's view of the serving material: key, certificate chain and CA bundle read from the
 * two Secrets, published as immutable snapshots with change notifications. Consumers (the TLS
 * server, webhook configuration caBundle writers, clients) subscribe instead of restarting.
 */
import { createPrivateKey, createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { BehaviorSubject, filter, firstValueFrom, map, type Observable, timeout } from 'rxjs';
import { CERT_OPTIONS, CERT_SECRET_STORE, TLS_CERT_KEY, TLS_PRIVATE_KEY_KEY } from '../cert.constants';
import type { ResolvedCertOptions } from '../cert.options';
import { joinCertificates, parseCertificates } from '../crypto/pem';
import type { SecretStore } from '../secrets/secret-store';
import { coalesce } from './coalesce';

export interface TlsSnapshot {
  /** PEM private key of the serving certificate (PKCS#8). */
  readonly keyPem: string;
  /** PEM serving certificate (the leaf; the CA is a root and is not sent). */
  readonly certChainPem: string;
  /** PEM CA bundle clients should trust (every live CA; empty if the CA secret is missing). */
  readonly caBundlePem: string;
  readonly leaf: {
    readonly serialNumber: string;
    readonly issuer: string;
    readonly notAfter: Date;
    readonly fingerprint256: string;
  };
  readonly caSerialNumbers: readonly string[];
  /** Content hash: equal snapshots have equal versions. */
  readonly version: string;
}

@Injectable()
export class TlsMaterial {
  private readonly logger = new Logger('TlsMaterial');
  private readonly subject = new BehaviorSubject<TlsSnapshot | undefined>(undefined);
  private lastErrorText?: string;

  /** Each distinct snapshot once, the current one first (after the first successful read). */
  readonly changes: Observable<TlsSnapshot> = this.subject.pipe(filter((value): value is TlsSnapshot => !!value));

  /** Re-reads both Secrets; concurrent calls share reads. Resolves to the current snapshot. */
  readonly refresh: () => Promise<TlsSnapshot | undefined> = coalesce(() => this.read());

  constructor(
    @Inject(CERT_OPTIONS) private readonly options: ResolvedCertOptions,
    @Inject(CERT_SECRET_STORE) private readonly store: SecretStore,
  ) {}

  current(): TlsSnapshot | undefined {
    return this.subject.value;
  }

  /** Why the last refresh kept the previous snapshot, if it did. */
  lastError(): string | undefined {
    return this.lastErrorText;
  }

  /** The first snapshot (refreshing once now); rejects after `timeoutMs`. */
  async ready(timeoutMs = 30_000): Promise<TlsSnapshot> {
    if (!this.subject.value) await this.refresh().catch(() => undefined);
    return firstValueFrom(
      this.changes.pipe(
        timeout(timeoutMs),
        map((snapshot) => snapshot),
      ),
    );
  }

  /** Subscribe to changes; returns the unsubscribe function. */
  onChange(listener: (snapshot: TlsSnapshot) => void): () => void {
    const subscription = this.changes.subscribe(listener);
    return () => subscription.unsubscribe();
  }

  close(): void {
    this.subject.complete();
  }

  private async read(): Promise<TlsSnapshot | undefined> {
    const [caSecret, pairSecret] = await Promise.all([
      this.store.read(this.options.caSecretName),
      this.store.read(this.options.pairSecretName),
    ]);
    const now = Date.now();
    const leaf = parseCertificates(pairSecret?.data[TLS_CERT_KEY])[0];
    const keyPem = pairSecret?.data[TLS_PRIVATE_KEY_KEY];
    if (!leaf || !keyPem) return this.keep(`secret ${this.options.pairSecretName} has no certificate and key yet`);
    try {
      if (!leaf.checkPrivateKey(createPrivateKey(keyPem))) return this.keep('tls.key does not match tls.crt');
    } catch (error) {
      return this.keep(`tls.key is unreadable: ${(error as Error).message}`);
    }
    // Clients should not be handed CAs that can no longer verify anything.
    const cas = parseCertificates(caSecret?.data[TLS_CERT_KEY]).filter(
      (certificate) => certificate.ca && new Date(certificate.validTo).getTime() > now,
    );
    const certChainPem = joinCertificates([leaf]);
    const caBundlePem = joinCertificates(cas);
    const version = createHash('sha256')
      .update(keyPem)
      .update(certChainPem)
      .update(caBundlePem)
      .digest('hex')
      .slice(0, 16);
    this.lastErrorText = undefined;
    if (this.subject.value?.version === version) return this.subject.value;
    const snapshot: TlsSnapshot = {
      keyPem,
      certChainPem,
      caBundlePem,
      leaf: {
        serialNumber: leaf.serialNumber,
        issuer: leaf.issuer,
        notAfter: new Date(leaf.validTo),
        fingerprint256: leaf.fingerprint256,
      },
      caSerialNumbers: cas.map((certificate) => certificate.serialNumber),
      version,
    };
    this.subject.next(snapshot);
    return snapshot;
  }

  private keep(problem: string): TlsSnapshot | undefined {
    if (this.lastErrorText !== problem) this.logger.warn(`keeping the current TLS material: ${problem}`);
    this.lastErrorText = problem;
    return this.subject.value;
  }
}
