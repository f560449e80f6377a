/**
 * Wires the parts together at runtime: reads the material at startup, reconciles once when leading,
 * and on every Secret event refreshes the material and (when leading) reconciles, so a deleted or
 * edited Secret is repaired. Periodic checks are the app scheduler's job: it calls
 * `CertRenewer.reconcile()` (and may use `nextCheckAt`).
 */
import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { CERT_LEADER_GATE, CERT_OPTIONS, CERT_SECRET_WATCH } from './cert.constants';
import type { ResolvedCertOptions } from './cert.options';
import type { LeaderGate } from '@edict/leader';
import { coalesce } from './material/coalesce';
import { TlsMaterial } from './material/tls-material';
import { CertRenewer } from './renewal/cert-renewer';
import type { SecretWatchSource } from './secrets/secret-store';

@Injectable()
export class CertLifecycle implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('CertModule');
  private stopLeadership?: () => void;

  /** Refresh the material and, when leading, reconcile; bursts collapse into one more run. */
  readonly sync: () => Promise<void> = coalesce(async () => {
    if (this.gate.isLeader()) {
      await this.renewer.reconcile().catch((error: Error) => this.logger.error(`reconcile failed: ${error.message}`));
    }
    await this.material
      .refresh()
      .catch((error: Error) => this.logger.error(`reading TLS material failed: ${error.message}`));
  });

  constructor(
    @Inject(CERT_OPTIONS) private readonly options: ResolvedCertOptions,
    @Inject(CERT_LEADER_GATE) private readonly gate: LeaderGate,
    private readonly renewer: CertRenewer,
    private readonly material: TlsMaterial,
    @Optional() @Inject(CERT_SECRET_WATCH) private readonly watch?: SecretWatchSource,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.options.reconcileOnStart) await this.sync();
    else await this.material.refresh().catch(() => undefined);
    if (this.options.watch && this.watch) {
      this.watch.start([this.options.caSecretName, this.options.pairSecretName], () => void this.sync());
    }
    this.stopLeadership = this.gate.onStartedLeading?.(() => void this.sync());
  }

  onModuleDestroy(): void {
    this.watch?.stop();
    this.stopLeadership?.();
    this.material.close();
  }
}
