/**
 * kube-controller-manager's CSR signer for `kubernetes.io/kube-apiserver-client`: an approved
 * request (not denied or failed, not yet issued) whose usages are client authentication (plus
 * digital signature / key encipherment) gets a certificate from the cluster CA in `status`, valid
 * for `spec.expirationSeconds` (one year by default, kube's `--cluster-signing-duration`). The API
 * server then authenticates it: its CN is the user, its O entries the groups.
 */
import { isObject, type JsonObject } from '@edict/foundation';
import type { ChangeEvent, ClusterCa, ClusterCache } from '@edict/apiserver';
import type { ControllerClient } from './controller-client';
import { splitKey, keyOf } from './queue-keys';
import { WorkQueue } from '@edict/work-queue';

const CSRS = 'certificates.k8s.io/certificatesigningrequests';
const SIGNER = 'kubernetes.io/kube-apiserver-client';
const ALLOWED_USAGES = new Set(['client auth', 'digital signature', 'key encipherment']);
const DEFAULT_SECONDS = 365 * 24 * 3600;

export class CsrSigningController {
  readonly queue = new WorkQueue((key) => this.sync(key), 1);

  constructor(
    private readonly store: ClusterCache,
    private readonly client: ControllerClient,
    private readonly ca: ClusterCa,
  ) {}

  observe(event: ChangeEvent): void {
    if (event.groupResource === CSRS && event.type !== 'DELETED') this.queue.add(keyOf(event.object));
  }

  resyncAll(): void {
    for (const csr of this.store.list(CSRS)) this.queue.add(keyOf(csr));
  }

  private async sync(key: string): Promise<void> {
    const csr = this.store.get(CSRS, '', splitKey(key)[1]);
    if (!csr || !isObject(csr.spec) || csr.spec.signerName !== SIGNER) return;
    const status = isObject(csr.status) ? csr.status : {};
    if (status.certificate || !holds(status, 'Approved') || holds(status, 'Denied') || holds(status, 'Failed')) return;
    const usages = Array.isArray(csr.spec.usages) ? csr.spec.usages : [];
    if (!usages.includes('client auth') || usages.some((usage) => !ALLOWED_USAGES.has(String(usage)))) return;
    const request = Buffer.from(String(csr.spec.request ?? ''), 'base64').toString('utf8');
    const seconds = typeof csr.spec.expirationSeconds === 'number' ? csr.spec.expirationSeconds : DEFAULT_SECONDS;
    const certificate = await this.ca.signClient(request, Math.min(seconds, DEFAULT_SECONDS));
    await this.client.update(
      { ...csr, status: { ...status, certificate: Buffer.from(certificate).toString('base64') } },
      'status',
    );
  }
}

function holds(status: JsonObject, type: string): boolean {
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  return conditions.some((condition) => isObject(condition) && condition.type === type && condition.status !== 'False');
}
