/**
 * The launcher's own settings (the admission controller's come from its ControllerConfig), read
 * from the environment and validated once; a bad value fails naming its variable.
 */
import 'reflect-metadata';
import { validateOptions } from '@edict/config';
import { IsIn, IsInt, IsNotEmpty, IsString, Max, Min } from 'class-validator';
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
}

const ENVIRONMENT: Record<string, keyof LauncherConfig> = {
  EDICT_MODE: 'mode',
  EDICT_API_PORT: 'apiPort',
  EDICT_KUBECONFIG: 'kubeconfigPath',
  EDICT_EXAMPLES: 'examplesDir',
};

/** The variables read and the field each sets: docs/configuration.md is generated from it (test/chart). */
export const LAUNCHER_ENVIRONMENT: Readonly<Record<string, keyof LauncherConfig>> = ENVIRONMENT;

export function loadLauncherConfig(env: NodeJS.ProcessEnv = process.env): LauncherConfig {
  const input: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [variable, field] of Object.entries(ENVIRONMENT)) {
    const raw = env[variable]?.trim();
    if (raw === undefined || raw === '') continue;
    if (field !== 'apiPort') input[field] = raw;
    else if (/^\d+$/.test(raw)) input[field] = Number(raw);
    else problems.push(`${variable}: must be a whole number, got ${JSON.stringify(raw)}`);
  }
  const { options, problems: invalid } = validateOptions(LauncherConfig, input);
  for (const problem of invalid) {
    const variable = Object.entries(ENVIRONMENT).find(([, field]) => problem.startsWith(`${field}:`))?.[0];
    problems.push(variable ? `${variable}: ${problem.slice(problem.indexOf(':') + 2)}` : problem);
  }
  if (problems.length > 0) throw new Error(`invalid launcher configuration: ${problems.join('; ')}`);
  return options;
}
