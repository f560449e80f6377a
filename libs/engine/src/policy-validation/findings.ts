import { formatPath, type Diagnostic, type PathSegment } from '@edict/foundation';

export type Path = readonly PathSegment[];

/** `Kind/name` naming the object in diagnostics; fields of the wrong type (reported elsewhere) are left out. */
export function objectLabel(kind: unknown, name: unknown, defaultKind: string): string {
  const label = typeof kind === 'string' && kind !== '' ? kind : defaultKind;
  return typeof name === 'string' && name !== '' ? `${label}/${name}` : label;
}

/**
 * Collects the problems found in one policy or exception. Kyverno stops at the first error; Edict
 * reports every one it finds (deduplicated), each with the field path it concerns.
 */
export class Findings {
  private readonly seen = new Set<string>();
  readonly diagnostics: Diagnostic[] = [];

  constructor(private readonly base: { file: string; object?: string }) {}

  error(path: Path, message: string): void {
    this.add(path, message, 'error');
  }

  warning(path: Path, message: string): void {
    this.add(path, message, 'warning');
  }

  get errorCount(): number {
    return this.diagnostics.filter((d) => d.severity !== 'warning').length;
  }

  private add(path: Path, message: string, severity: 'error' | 'warning'): void {
    const formatted = formatPath(path);
    const key = `${severity}\u0000${formatted}\u0000${message}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.diagnostics.push({
      file: this.base.file,
      ...(this.base.object ? { object: this.base.object } : {}),
      ...(formatted ? { path: formatted } : {}),
      message,
      ...(severity === 'warning' ? { severity } : {}),
    });
  }
}
