/**
 * How kube-apiserver prints ages in Table cells: `45s`, `3m12s`, `5h10m`, `3d4h`, `2y30d`; precision
 * drops as the age grows. A timestamp up to a second in the future reads `0s` (clock skew).
 */
export function humanDuration(milliseconds: number): string {
  const seconds = Math.trunc(milliseconds / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) return withRemainder(minutes, 'm', seconds % 60, 's');
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) return withRemainder(hours, 'h', minutes % 60, 'm');
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) return withRemainder(days, 'd', hours % 24, 'h');
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) return withRemainder(years, 'y', days % 365, 'd');
  return `${years}y`;
}

function withRemainder(major: number, majorUnit: string, minor: number, minorUnit: string): string {
  return minor === 0 ? `${major}${majorUnit}` : `${major}${majorUnit}${minor}${minorUnit}`;
}

/** The age of an RFC 3339 timestamp, `<unknown>` when there is none, `<invalid>` when it does not parse. */
export function ageOf(timestamp: unknown, now: number): string {
  if (timestamp === undefined || timestamp === null || timestamp === '') return '<unknown>';
  const time = typeof timestamp === 'string' ? Date.parse(timestamp) : NaN;
  return Number.isFinite(time) ? humanDuration(now - time) : '<invalid>';
}
