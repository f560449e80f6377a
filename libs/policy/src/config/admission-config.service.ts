/**
 * The Kyverno-format ConfigMap, read at start and followed through an informer, for every
 * controller that reads it (each provides ADMISSION_CONFIG_SOURCE from its own config). Bad values
 * are logged and keep their defaults (as Kyverno does); a deleted ConfigMap means the defaults again.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { defaultAdmissionConfig, parseAdmissionConfig, type AdmissionConfig } from '@edict/admission';
import { InformerFactory, InformerService } from '@edict/kube';
import { type KubeObject } from '@edict/foundation';
import { PolicyCache } from '../policy-cache';

/** Where the ConfigMap is and what the environment sets over it. */
export interface AdmissionConfigSource {
  readonly namespace: string;
  readonly configMapName: string;
  readonly watchTimeoutSeconds: number;
  /** Exception namespaces from the environment; when any, they win over the ConfigMap's. */
  readonly exceptionNamespaces: readonly string[];
}

export const ADMISSION_CONFIG_SOURCE = Symbol('ADMISSION_CONFIG_SOURCE');

type ConfigMap = KubeObject & { data?: Record<string, string> };

@Injectable()
export class AdmissionConfigService extends InformerService {
  private readonly logger = new Logger('AdmissionConfig');
  private config: AdmissionConfig;
  private readonly listeners = new Set<(config: AdmissionConfig) => void>();

  constructor(
    @Inject(ADMISSION_CONFIG_SOURCE) private readonly settings: AdmissionConfigSource,
    informers: InformerFactory,
    private readonly policies: PolicyCache,
  ) {
    super(informers, settings.watchTimeoutSeconds);
    this.config = this.withSettings(defaultAdmissionConfig({ controllerNamespace: settings.namespace }));
    policies.setExceptionNamespaces(this.config.exceptionNamespaces);
    const informer = this.watch<ConfigMap>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: settings.namespace,
      fieldSelector: `metadata.name=${settings.configMapName}`,
    });
    const apply = (configMap: ConfigMap | undefined) => this.apply(configMap);
    informer.on('add', apply);
    informer.on('update', apply);
    informer.on('delete', () => apply(undefined));
  }

  /** The configuration in force now (an immutable value: hold it for one request). */
  current(): AdmissionConfig {
    return this.config;
  }

  /** Called with each configuration loaded after this call (the webhook controller republishes). */
  onChange(listener: (config: AdmissionConfig) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private apply(configMap: ConfigMap | undefined): void {
    const { config, problems } = parseAdmissionConfig(configMap?.data, {
      controllerNamespace: this.settings.namespace,
    });
    for (const problem of problems) this.logger.warn(`ConfigMap ${this.settings.configMapName}: ${problem.message}`);
    this.config = Object.freeze(this.withSettings(config));
    // The one place the namespaces come from: exceptions are honoured only from these.
    this.policies.setExceptionNamespaces(this.config.exceptionNamespaces);
    this.logger.log(
      configMap
        ? `configuration loaded from ConfigMap ${this.settings.configMapName}`
        : 'configuration reset to defaults',
    );
    for (const listener of this.listeners) listener(this.config);
  }

  /** Exception namespaces given on the command line (env) win over the ConfigMap, like Kyverno's flag. */
  private withSettings(config: AdmissionConfig): AdmissionConfig {
    return this.settings.exceptionNamespaces.length > 0
      ? { ...config, exceptionNamespaces: [...this.settings.exceptionNamespaces] }
      : config;
  }
}
