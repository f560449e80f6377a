/** Kyverno/cosign-like failure texts, bounded: a registry full of bad signatures cannot grow them. */
const MAX_REASONS = 5;
const MAX_REASON_LENGTH = 300;

export function joinReasons(prefix: string, reasons: readonly string[]): string {
  const distinct = [...new Set(reasons)];
  const shown = distinct
    .slice(0, MAX_REASONS)
    .map((r) => (r.length > MAX_REASON_LENGTH ? `${r.slice(0, MAX_REASON_LENGTH)}...` : r));
  const more = distinct.length > MAX_REASONS ? `; and ${distinct.length - MAX_REASONS} more` : '';
  return shown.length === 0 ? prefix : `${prefix}: ${shown.join('; ')}${more}`;
}
