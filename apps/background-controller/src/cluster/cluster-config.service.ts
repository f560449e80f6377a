/**
 * The Kyverno-format ConfigMap as the background controller uses it: `generateSuccessEvents`, the
 * PolicyException namespaces (handed to the policy cache) and the context size bound. Followed
 * through an informer; bad values keep their defaults, a deleted ConfigMap means the defaults.
 */
import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { defaultAdmissionConfig, parseAdmissionConfig, type AdmissionConfig } from '@edict/admission';
import { InformerFactory, type Informer, type KubeObject } from '@edict/kube';
import { PolicyCache } from '@edict/policy';
import type { BackgroundConfig } from '../config/background-config';
import { BACKGROUND_CONFIG } from '../config/tokens';

type ConfigMap = KubeObject & { data?: Record<string, string> };

@Injectable()
export class ClusterConfigService implements OnModuleInit {
  private readonly logger = new Logger('BackgroundConfig');
  private readonly informer: Informer<ConfigMap>;
  private config: AdmissionConfig;

  constructor(
    @Inject(BACKGROUND_CONFIG) private readonly settings: BackgroundConfig,
    informers: InformerFactory,
    private readonly policies: PolicyCache,
  ) {
    this.config = this.withSettings(defaultAdmissionConfig({ controllerNamespace: settings.namespace }));
    policies.setExceptionNamespaces(this.config.exceptionNamespaces);
    this.informer = informers.create<ConfigMap>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: settings.namespace,
      fieldSelector: `metadata.name=${settings.configMapName}`,
      watchTimeoutSeconds: settings.watchTimeoutSeconds,
    });
  }

  onModuleInit(): void {
    const apply = (configMap: ConfigMap | undefined) => this.apply(configMap);
    this.informer.on('add', apply);
    this.informer.on('update', apply);
    this.informer.on('delete', () => apply(undefined));
    this.informer.start();
  }

  current(): AdmissionConfig {
    return this.config;
  }

  hasSynced(): boolean {
    return this.informer.hasSynced();
  }

  private apply(configMap: ConfigMap | undefined): void {
    const { config, problems } = parseAdmissionConfig(configMap?.data, {
      controllerNamespace: this.settings.namespace,
    });
    for (const problem of problems) this.logger.warn(`ConfigMap ${this.settings.configMapName}: ${problem.message}`);
    this.config = Object.freeze(this.withSettings(config));
    this.policies.setExceptionNamespaces(this.config.exceptionNamespaces);
  }

  /** Exception namespaces given in the environment win over the ConfigMap's, as Kyverno's flag does. */
  private withSettings(config: AdmissionConfig): AdmissionConfig {
    return this.settings.exceptionNamespaces.length > 0
      ? { ...config, exceptionNamespaces: [...this.settings.exceptionNamespaces] }
      : config;
  }
}
