/**
 * Whether what is stored already says what we want: every field we set is equal in the stored
 * object (the API server adds defaults we do not set, which must not count as drift). Arrays must
 * have the same length, so an extra stored webhook or rule is drift.
 */
export function covers(wanted: unknown, stored: unknown): boolean {
  if (Array.isArray(wanted)) {
    return (
      Array.isArray(stored) && stored.length === wanted.length && wanted.every((item, i) => covers(item, stored[i]))
    );
  }
  if (wanted !== null && typeof wanted === 'object') {
    if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return false;
    const record = stored as Record<string, unknown>;
    return Object.entries(wanted as Record<string, unknown>).every(([key, value]) =>
      value === undefined ? true : covers(value, record[key]),
    );
  }
  return wanted === stored;
}
