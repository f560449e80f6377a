/**
 * Problems found while reading policy/resource files. Never thrown: collected and shown to the
 * user so that one bad document does not hide the others.
 */
export interface Diagnostic {
  file: string;
  /** 0-based position of the YAML document in the file (shown 1-based). */
  document?: number;
  /** Position inside `items` when the object came from a List document. */
  item?: number;
  /** The object concerned, e.g. `ClusterPolicy/require-labels`. */
  object?: string;
  /** 1-based line and column in the file. */
  line?: number;
  column?: number;
  /** Field path inside the document, e.g. `spec.rules[1].validate.pattern`. */
  path?: string;
  message: string;
  /** Absent means `error`. Warnings never make a document be skipped. */
  severity?: 'error' | 'warning';
}

export function isError(diagnostic: Diagnostic): boolean {
  return diagnostic.severity !== 'warning';
}

/** `policy.yaml (document 2, line 14): ClusterPolicy/p: spec.rules[0].match: <message>` */
export function formatDiagnostic(d: Diagnostic): string {
  const where: string[] = [];
  if (d.document !== undefined) where.push(`document ${d.document + 1}`);
  if (d.item !== undefined) where.push(`item ${d.item + 1}`);
  if (d.line !== undefined) where.push(`line ${d.line}`);
  if (d.column !== undefined) where.push(`column ${d.column}`);
  const location = where.length > 0 ? `${d.file} (${where.join(', ')})` : d.file;
  const parts = [location, ...(d.severity === 'warning' ? ['warning'] : []), ...(d.object ? [d.object] : [])];
  if (d.path) parts.push(d.path);
  return `${parts.join(': ')}: ${d.message}`;
}

export type PathSegment = string | number;

/** `['spec', 'rules', 1, 'name']` → `spec.rules[1].name`; keys that are not identifiers are quoted. */
export function formatPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** Inverse of {@link formatPath}. */
export function parsePath(path: string): PathSegment[] {
  const segments: PathSegment[] = [];
  const re = /([^.[\]]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g;
  let match: RegExpExecArray | null;
  while ((match = re.exec(path)) !== null) {
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else segments.push(JSON.parse(match[3]) as string);
  }
  return segments;
}
