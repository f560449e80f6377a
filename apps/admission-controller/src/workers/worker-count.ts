/**
 * How many review workers the pod's CPU pays for: the cores the process may run on
 * (os.availableParallelism follows the CPU affinity) capped by the cgroup v2 quota (`cpu.max`), as a
 * container's limit shows up only there. One usable core gets none: a worker would only add the
 * hand-off to the same core's work.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

const CGROUP_CPU_MAX = '/sys/fs/cgroup/cpu.max';
const MAX_WORKERS = 64;

/** The workers to start: the setting's count (0: evaluate in-process), or for `auto` one per usable core (at most 64). */
export function reviewWorkerCount(setting: string, cores: number = usableCores()): number {
  if (setting !== 'auto') return Number(setting);
  return cores >= 2 ? Math.min(MAX_WORKERS, cores) : 0;
}

/** Cores this process may use: affinity, capped by the cgroup quota when one is set. */
export function usableCores(cpuMax: string | undefined = readCpuMax()): number {
  const quota = cpuMax === undefined ? undefined : coresOfCpuMax(cpuMax);
  return Math.max(1, Math.min(availableParallelism(), quota ?? Infinity));
}

/** `cpu.max` is `<quota> <period>` in microseconds, or `max <period>` without a limit. */
export function coresOfCpuMax(text: string): number | undefined {
  const [quota, period] = text.trim().split(/\s+/);
  const q = Number(quota);
  const p = Number(period);
  if (quota === 'max' || !Number.isFinite(q) || !Number.isFinite(p) || q <= 0 || p <= 0) return undefined;
  return Math.max(1, Math.ceil(q / p));
}

function readCpuMax(): string | undefined {
  try {
    return readFileSync(CGROUP_CPU_MAX, 'utf8');
  } catch {
    return undefined;
  }
}
