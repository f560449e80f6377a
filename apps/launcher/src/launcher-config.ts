/**
 * The launcher's own settings (the admission controller's come from its ControllerConfig), read
 * from the environment and validated once; a bad value fails naming its variable.
 */
import 'reflect-metadata';
import { admissionPolicyVersions, type ApiServerSettings } from '@edict/apiserver';
import { validateOptions } from '@edict/config';
import { errorMessage } from '@edict/foundation';
import { IsIn, IsInt, IsNotEmpty, IsString, Max, MaxLength, Min } from 'class-validator';
import { LOGGING_FORMATS, type LoggingFormat } from '@edict/controller-runtime';
import type { RequestedMode } from './launch-mode';

export class LauncherConfig {
  /** `local`: the in-memory cluster; `cluster`: the admission controller against a real one (launch-mode.ts). */
  @IsIn(['local', 'cluster'], { message: 'mode must be local or cluster' })
  mode: RequestedMode = 'local';

  /** Local mode: the in-memory API server's port on 127.0.0.1 (0: any free port). */
  @IsInt()
  @Min(0)
  @Max(65535)
  apiPort = 6443;

  /** Local mode: where the kubeconfig is written (the CA goes beside it as ca.crt). */
  @IsString()
  @IsNotEmpty()
  kubeconfigPath = '.edict/kubeconfig';

  /** Local mode: the folder whose kyverno-test.yaml files name the policies to install. */
  @IsString()
  @IsNotEmpty()
  examplesDir = 'examples';

  /**
   * Local mode: the Kubernetes version the in-memory API server serves the APIs of, `1.<minor>`
   * (empty: the version its `/version` reports). It decides, with the two settings below, which versions of
   * ValidatingAdmissionPolicy and MutatingAdmissionPolicy are served.
   */
  @IsString()
  @MaxLength(32)
  kubernetesVersion = '';

  /**
   * Local mode: kube-apiserver's `--runtime-config` (a kind cluster's `runtimeConfig`), comma-separated
   * `group/version=true|false`, e.g. `admissionregistration.k8s.io/v1beta1=true`.
   */
  @IsString()
  @MaxLength(2048)
  runtimeConfig = '';

  /** Local mode: kube-apiserver's `--feature-gates`, comma-separated `Name=true|false`, e.g. `MutatingAdmissionPolicy=true`. */
  @IsString()
  @MaxLength(2048)
  featureGates = '';
  /** Kyverno's --loggingFormat for the launcher and the controllers it starts: `text` or `json`. */
  @IsIn(LOGGING_FORMATS, { message: `loggingFormat must be one of ${LOGGING_FORMATS.join(', ')}` })
  loggingFormat: LoggingFormat = 'text';

  /** Kyverno's -v. Left at 2 in text, the launcher keeps its quiet start (warnings and errors only). */
  @IsInt()
  @Min(0)
  @Max(10)
  verbosity = 2;
}

const LAUNCHER_ONLY: Record<string, keyof LauncherConfig> = {
  EDICT_MODE: 'mode',
  EDICT_API_PORT: 'apiPort',
  EDICT_KUBECONFIG: 'kubeconfigPath',
  EDICT_EXAMPLES: 'examplesDir',
  EDICT_KUBERNETES_VERSION: 'kubernetesVersion',
  EDICT_RUNTIME_CONFIG: 'runtimeConfig',
  EDICT_FEATURE_GATES: 'featureGates',
};

/** Entries of one `--runtime-config` or `--feature-gates` value. */
const MAX_ENTRIES = 64;
/** The launcher's variables and the logging ones it shares with the controllers (documented with theirs). */
const ENVIRONMENT: Record<string, keyof LauncherConfig> = {
  ...LAUNCHER_ONLY,
  EDICT_LOGGING_FORMAT: 'loggingFormat',
  EDICT_VERBOSITY: 'verbosity',
};

const INTEGER_FIELDS: ReadonlySet<keyof LauncherConfig> = new Set(['apiPort', 'verbosity']);

/** The variables read and the field each sets: docs/configuration.md is generated from it (test/chart). */
export const LAUNCHER_ENVIRONMENT: Readonly<Record<string, keyof LauncherConfig>> = LAUNCHER_ONLY;

export function loadLauncherConfig(env: NodeJS.ProcessEnv = process.env): LauncherConfig {
  const input: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [variable, field] of Object.entries(ENVIRONMENT)) {
    const raw = env[variable]?.trim();
    if (raw === undefined || raw === '') continue;
    if (!INTEGER_FIELDS.has(field)) input[field] = raw;
    else if (/^\d+$/.test(raw)) input[field] = Number(raw);
    else problems.push(`${variable}: must be a whole number, got ${JSON.stringify(raw)}`);
  }
  const { options, problems: invalid } = validateOptions(LauncherConfig, input);
  for (const problem of invalid) {
    const variable = Object.entries(ENVIRONMENT).find(([, field]) => problem.startsWith(`${field}:`))?.[0];
    problems.push(variable ? `${variable}: ${problem.slice(problem.indexOf(':') + 2)}` : problem);
  }
  if (problems.length === 0) {
    try {
      launcherApiServerSettings(options);
    } catch (error) {
      problems.push(errorMessage(error));
    }
  }
  if (problems.length > 0) throw new Error(`invalid launcher configuration: ${problems.join('; ')}`);
  return options;
}

/**
 * The in-memory API server's settings from the launcher's: its Kubernetes version, runtime config
 * and feature gates, as kube-apiserver reads `--runtime-config` (an entry without `=` means true)
 * and `--feature-gates`; values other than true and false are refused.
 */
export function launcherApiServerSettings(config: LauncherConfig): ApiServerSettings {
  const settings: {
    kubernetesVersion?: string;
    runtimeConfig?: Record<string, boolean>;
    featureGates?: Record<string, boolean>;
  } = {};
  if (config.kubernetesVersion !== '') settings.kubernetesVersion = config.kubernetesVersion;
  if (config.runtimeConfig !== '') {
    settings.runtimeConfig = flags('EDICT_RUNTIME_CONFIG', config.runtimeConfig, /^[a-z0-9.-]+\/[a-z0-9]+$/, true);
  }
  if (config.featureGates !== '') {
    settings.featureGates = flags('EDICT_FEATURE_GATES', config.featureGates, /^[A-Za-z0-9]+$/, false);
  }
  try {
    admissionPolicyVersions(settings);
  } catch (error) {
    throw new Error(`EDICT_KUBERNETES_VERSION: ${errorMessage(error).replace(/^apiServer\.kubernetesVersion: /, '')}`);
  }
  return settings;
}

function flags(variable: string, text: string, key: RegExp, valueOptional: boolean): Record<string, boolean> {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length > MAX_ENTRIES) throw new Error(`${variable}: at most ${MAX_ENTRIES} entries`);
  const out: Record<string, boolean> = {};
  for (const entry of entries) {
    const [name = '', value = valueOptional ? 'true' : '', ...rest] = entry.split('=').map((part) => part.trim());
    if (!key.test(name) || rest.length > 0 || (value !== 'true' && value !== 'false')) {
      throw new Error(`${variable}: ${JSON.stringify(entry)} is not name=true or name=false`);
    }
    out[name] = value === 'true';
  }
  return out;
}
