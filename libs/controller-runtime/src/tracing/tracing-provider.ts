/**
 * The app's Tracing (Kyverno's SetupTracing): with `enableTracing`, an OpenTelemetry tracer that
 * exports over OTLP to tracingAddress:tracingPort, its TLS CA read from the `tracingCreds` Secret;
 * otherwise NO_TRACING, and no SDK is loaded into the span path at all. Spans still batched are
 * exported when the app closes (TracingShutdown).
 */
import { Inject, Injectable, Logger, type OnApplicationShutdown, type FactoryProvider } from '@nestjs/common';
import { NO_TRACING, TRACING, errorMessage, type Tracing } from '@edict/foundation';
import type { KubeConfig } from '@kubernetes/client-node';
import { KUBE_CONFIG, KubeHttpClient, KubeResources } from '@edict/kube';
import { startOtelTracing, type RunningTracing } from '@edict/tracing';
import type { ControllerBaseConfig } from '../config/controller-config';

/** The Secret keys Kyverno's tracing CA is read from, in order. */
const CA_KEYS = ['ca.crt', 'ca.pem'];

/** The TRACING provider of a controller named `component` (`admission-controller`, ...). */
export function tracingProvider(config: ControllerBaseConfig, component: string): FactoryProvider<Tracing> {
  return {
    provide: TRACING,
    // The kubeconfig, not the app's KubeResources: its HTTP client takes this Tracing.
    inject: [KUBE_CONFIG],
    useFactory: async (kubeConfig: KubeConfig): Promise<Tracing> => {
      if (!config.enableTracing) return NO_TRACING;
      const caPem = config.tracingCreds
        ? await readCa(new KubeResources(new KubeHttpClient(kubeConfig)), config.namespace, config.tracingCreds)
        : undefined;
      const endpoint = `${hostForUrl(config.tracingAddress || 'localhost')}:${config.tracingPort}`;
      new Logger('Tracing').log(
        `exporting spans over OTLP/${config.tracingProtocol} to ${endpoint}${caPem ? ' (TLS)' : ''}`,
      );
      return startOtelTracing({
        serviceName: `${config.installName}-${component}`,
        endpoint,
        protocol: config.tracingProtocol,
        ...(caPem !== undefined ? { caPem } : {}),
      });
    },
  };
}

/** An IPv6 address in brackets, as a URL wants it. */
function hostForUrl(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

async function readCa(resources: KubeResources, namespace: string, name: string): Promise<string> {
  let secret: { data?: Record<string, string> };
  try {
    secret = (await resources.get({ apiVersion: 'v1', kind: 'Secret', namespace, name })) as typeof secret;
  } catch (error) {
    throw new Error(`tracingCreds: cannot read Secret ${namespace}/${name}: ${errorMessage(error)}`);
  }
  const key = CA_KEYS.find((candidate) => secret.data?.[candidate]);
  if (!key) throw new Error(`tracingCreds: Secret ${namespace}/${name} has no ${CA_KEYS.join(' or ')}`);
  return Buffer.from(secret.data![key]!, 'base64').toString('utf8');
}

/** Exports the spans still batched when the app closes. */
@Injectable()
export class TracingShutdown implements OnApplicationShutdown {
  constructor(@Inject(TRACING) private readonly tracing: Tracing) {}

  async onApplicationShutdown(): Promise<void> {
    const running = this.tracing as Partial<RunningTracing>;
    if (running.shutdown) await running.shutdown();
  }
}
