/**
 * What the `certs` scenario watches while it runs, from outside the controllers: the two TLS
 * Secrets (watched, so each write is timed as the API server sends it), the caBundle of every
 * webhook configuration (watched), and the certificate each running admission replica serves
 * (a TLS handshake with each, every SAMPLE_INTERVAL_MS, as a new client of the Service would make).
 */
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import { KubeConfig, Watch } from '@kubernetes/client-node';
import { tlsSecretNames } from '@edict/config';
import type { ChaosCluster } from './chaos-cluster';
import { CHAOS_NAMESPACE, CHAOS_SERVICE } from './cluster';
import type { CaWrite, LeafWrite, ServedSample } from './cert-rotations';

export const SAMPLE_INTERVAL_MS = 250;
const HANDSHAKE_TIMEOUT_MS = 2_000;
const WATCH_RETRY_MS = 500;
const { ca: CA_SECRET, pair: PAIR_SECRET } = tlsSecretNames(CHAOS_SERVICE, CHAOS_NAMESPACE);
const WEBHOOK_CONFIGURATIONS = ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations'];

interface WatchedObject {
  metadata?: { name?: string };
  data?: Record<string, string>;
  webhooks?: { clientConfig?: { caBundle?: string } }[];
}

/** The certificates in a PEM text. */
function certificatesIn(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => new X509Certificate(block));
}

export class CertObserver {
  readonly leafWrites: LeafWrite[] = [];
  readonly caWrites: CaWrite[] = [];
  readonly samples: ServedSample[] = [];
  /** Every CA ever seen, by serial. */
  private readonly cas = new Map<string, X509Certificate>();
  /** Per webhook configuration: the CA serials in each of its webhooks' caBundle. */
  private readonly bundles = new Map<string, Set<string>[]>();
  private readonly aborts: AbortController[] = [];
  private stopped = false;
  private sampler: NodeJS.Timeout | undefined;

  constructor(private readonly cluster: ChaosCluster) {}

  async start(): Promise<void> {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(this.cluster.kubeconfigPath);
    await this.watch(kubeConfig, `/api/v1/namespaces/${CHAOS_NAMESPACE}/secrets`, (type, object) =>
      this.onSecret(type, object),
    );
    for (const resource of WEBHOOK_CONFIGURATIONS) {
      await this.watch(kubeConfig, `/apis/admissionregistration.k8s.io/v1/${resource}`, (type, object) =>
        this.onWebhookConfiguration(`${resource}/${object.metadata?.name ?? ''}`, type, object),
      );
    }
    const tick = async () => {
      await this.sampleReplicas();
      if (!this.stopped) this.sampler = setTimeout(() => void tick(), SAMPLE_INTERVAL_MS);
    };
    void tick();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.sampler);
    for (const abort of this.aborts) abort.abort();
  }

  /** Watches `path` until stopped, restarting when the server ends the watch (each start replays the objects). */
  private async watch(
    kubeConfig: KubeConfig,
    path: string,
    onEvent: (type: string, object: WatchedObject) => void,
  ): Promise<void> {
    const open = async (): Promise<void> => {
      if (this.stopped) return;
      const again = () => {
        if (!this.stopped) setTimeout(() => void open(), WATCH_RETRY_MS);
      };
      try {
        this.aborts.push(await new Watch(kubeConfig).watch(path, {}, onEvent, again));
      } catch {
        again();
      }
    };
    await open();
  }

  private onSecret(type: string, secret: WatchedObject): void {
    if (type !== 'ADDED' && type !== 'MODIFIED') return;
    const name = secret.metadata?.name;
    const crt = secret.data?.['tls.crt'];
    if (!crt || (name !== CA_SECRET && name !== PAIR_SECRET)) return;
    const at = Date.now();
    const certificates = certificatesIn(Buffer.from(crt, 'base64').toString('utf8'));
    if (name === CA_SECRET) {
      for (const ca of certificates) {
        if (this.cas.has(ca.serialNumber)) continue;
        this.cas.set(ca.serialNumber, ca);
        this.caWrites.push({ at, serial: ca.serialNumber, notAfter: Date.parse(ca.validTo) });
      }
      return;
    }
    const leaf = certificates[0];
    if (!leaf || this.leafWrites.some((write) => write.serial === leaf.serialNumber)) return;
    this.leafWrites.push({
      at,
      serial: leaf.serialNumber,
      caSerial: this.issuerOf(leaf)?.serialNumber,
      notAfter: Date.parse(leaf.validTo),
    });
  }

  private onWebhookConfiguration(key: string, type: string, configuration: WatchedObject): void {
    if (type === 'DELETED') {
      this.bundles.delete(key);
      return;
    }
    if (type !== 'ADDED' && type !== 'MODIFIED') return;
    this.bundles.set(
      key,
      (configuration.webhooks ?? []).map(
        (webhook) =>
          new Set(
            certificatesIn(Buffer.from(webhook.clientConfig?.caBundle ?? '', 'base64').toString('utf8')).map(
              (ca) => ca.serialNumber,
            ),
          ),
      ),
    );
  }

  private issuerOf(leaf: X509Certificate): X509Certificate | undefined {
    return [...this.cas.values()].find((ca) => leaf.checkIssued(ca) && leaf.verify(ca.publicKey));
  }

  /** Why some webhook would not trust `caSerial` (undefined: every webhook of every configuration does). */
  private distrust(caSerial: string | undefined): string | undefined {
    if (!caSerial) return 'signed by no CA seen in the CA Secret';
    if (this.bundles.size === 0) return 'no webhook configuration yet';
    for (const [key, webhooks] of this.bundles) {
      if (!webhooks.every((bundle) => bundle.has(caSerial))) return `CA ${caSerial.slice(0, 8)} missing from ${key}`;
    }
    return undefined;
  }

  private async sampleReplicas(): Promise<void> {
    const replicas = this.cluster.running('admission');
    await Promise.all(
      replicas.map(async (replica) => {
        const leaf = await servedCertificate(replica.port);
        const at = Date.now();
        const distrust = leaf ? this.distrust(this.issuerOf(leaf)?.serialNumber) : 'no certificate';
        this.samples.push({
          at,
          replica: replica.name,
          serial: leaf?.serialNumber,
          expired: leaf ? Date.parse(leaf.validTo) <= at : false,
          trusted: distrust === undefined,
          ...(distrust !== undefined ? { untrustedBecause: distrust } : {}),
        });
      }),
    );
  }
}

/** The certificate a TLS server on 127.0.0.1:`port` presents (unverified), or undefined. */
function servedCertificate(port: number): Promise<X509Certificate | undefined> {
  return new Promise((resolve) => {
    const socket = connect({
      host: '127.0.0.1',
      port,
      servername: `${CHAOS_SERVICE}.${CHAOS_NAMESPACE}.svc`,
      rejectUnauthorized: false,
      timeout: HANDSHAKE_TIMEOUT_MS,
    });
    const done = (certificate: X509Certificate | undefined) => {
      socket.destroy();
      resolve(certificate);
    };
    socket.once('secureConnect', () => done(socket.getPeerX509Certificate()));
    socket.once('timeout', () => done(undefined));
    socket.once('error', () => done(undefined));
  });
}
