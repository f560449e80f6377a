/** Who a request acts as, and how webhook warnings travel back (kube's `Warning` header). */
import type { IncomingHttpHeaders } from 'node:http';
import { DEFAULT_USER, type UserInfo } from '../admission/types';

function values(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  return (Array.isArray(header) ? header : [header])
    .flatMap((value) => value.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
}

/**
 * The request's user: the fixed admin unless it impersonates someone with kube's headers
 * (`Impersonate-User`, `Impersonate-Group`, `Impersonate-Uid`; kubectl's `--as`/`--as-group`).
 * There is no authorization: impersonation is always allowed.
 */
export function requestUser(headers: IncomingHttpHeaders): UserInfo {
  const username = headers['impersonate-user'];
  if (typeof username !== 'string' || username === '') return DEFAULT_USER;
  const groups = values(headers['impersonate-group']);
  // kube adds system:authenticated to impersonated users other than anonymous.
  if (username !== 'system:anonymous' && !groups.includes('system:authenticated')) groups.push('system:authenticated');
  const uid = headers['impersonate-uid'];
  return { username, groups, ...(typeof uid === 'string' && uid !== '' ? { uid } : {}) };
}

/** `299 - "<text>"` per warning, deduplicated, quotes and backslashes escaped, UTF-8 bytes on the wire. */
export function warningHeader(warnings: readonly string[]): string[] {
  return [...new Set(warnings)].map((text) => {
    const printable = [...text].map((c) => (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f ? ' ' : c)).join('');
    const clean = printable.replace(/[\\"]/g, (c) => `\\${c}`);
    return Buffer.from(`299 - "${clean}"`, 'utf8').toString('latin1');
  });
}
