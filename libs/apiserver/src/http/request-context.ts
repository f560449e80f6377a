/** Who a request acts as, and how webhook warnings travel back (kube's `Warning` header). */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { DEFAULT_USER, type UserInfo } from '../admission/types';

function values(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  return (Array.isArray(header) ? header : [header])
    .flatMap((value) => value.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
}

/**
 * The request's user: the one a verified client certificate names (CN the user, O the groups, plus
 * `system:authenticated`, as kube's x509 authenticator does), otherwise the fixed admin; then, if it
 * impersonates someone with kube's headers (`Impersonate-User`, `Impersonate-Group`,
 * `Impersonate-Uid`; kubectl's `--as`/`--as-group`), that one. There is no authorization:
 * impersonation is always allowed.
 */
export function requestUser(request: IncomingMessage): UserInfo {
  const { headers } = request;
  const username = headers['impersonate-user'];
  if (typeof username !== 'string' || username === '') return certificateUser(request.socket) ?? DEFAULT_USER;
  const groups = values(headers['impersonate-group']);
  // kube adds system:authenticated to impersonated users other than anonymous.
  if (username !== 'system:anonymous' && !groups.includes('system:authenticated')) groups.push('system:authenticated');
  const uid = headers['impersonate-uid'];
  return { username, groups, ...(typeof uid === 'string' && uid !== '' ? { uid } : {}) };
}

function certificateUser(socket: Socket): UserInfo | undefined {
  if (!(socket instanceof TLSSocket) || !socket.authorized) return undefined;
  const subject = socket.getPeerCertificate().subject as Record<string, string | string[] | undefined> | undefined;
  const name = subject?.CN;
  if (typeof name !== 'string' || name === '') return undefined;
  const organizations = subject?.O === undefined ? [] : Array.isArray(subject.O) ? subject.O : [subject.O];
  const groups = organizations.includes('system:authenticated')
    ? organizations
    : [...organizations, 'system:authenticated'];
  return { username: name, groups };
}

/** `299 - "<text>"` per warning, deduplicated, quotes and backslashes escaped, UTF-8 bytes on the wire. */
export function warningHeader(warnings: readonly string[]): string[] {
  return [...new Set(warnings)].map((text) => {
    const printable = [...text].map((c) => (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f ? ' ' : c)).join('');
    const clean = printable.replace(/[\\"]/g, (c) => `\\${c}`);
    return Buffer.from(`299 - "${clean}"`, 'utf8').toString('latin1');
  });
}
