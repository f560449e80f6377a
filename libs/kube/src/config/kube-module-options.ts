/** The kube module's options, validated when the module is registered. */
import { validateOptions } from '@edict/config';
import { IsIn, IsNotEmpty, IsOptional, IsString } from 'class-validator';

export type KubeConfigSource = 'in-cluster' | 'kubeconfig' | 'auto';

export class KubeModuleOptions {
  /**
   * `in-cluster`: the pod's service account (KUBERNETES_SERVICE_HOST/PORT, token and CA files).
   * `kubeconfig`: `kubeconfig`, else `kubeconfigPath`, else $KUBECONFIG, else ~/.kube/config.
   * `auto` (default): an explicit kubeconfig if given, else in-cluster when it is available, else
   * $KUBECONFIG, else the local cluster's `.edict/kubeconfig`, else ~/.kube/config.
   */
  @IsIn(['in-cluster', 'kubeconfig', 'auto'])
  source: KubeConfigSource = 'auto';

  /** A kubeconfig file (e.g. the local cluster's `.edict/kubeconfig`). */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  kubeconfigPath?: string;

  /** A kubeconfig's YAML text (takes precedence over `kubeconfigPath`). */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  kubeconfig?: string;

  /** The context to use instead of the kubeconfig's current one. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  context?: string;

  /** Where `auto` looks for the local cluster's kubeconfig (default `.edict/kubeconfig`). */
  @IsOptional()
  @IsString()
  localKubeconfigPath?: string;

  /** Prefix for the service account files (tests; default none: /var/run/secrets/...). */
  @IsOptional()
  @IsString()
  serviceAccountPathPrefix?: string;
}

/** Builds and validates options; throws naming every bad field. */
export function validateKubeOptions(input: Partial<KubeModuleOptions> = {}): KubeModuleOptions {
  const { options, problems } = validateOptions(KubeModuleOptions, input);
  if (problems.length > 0) throw new Error(`Invalid KubeModule options: ${problems.join(', ')}`);
  return options;
}
