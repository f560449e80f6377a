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

/** Whom a request asks to act as (kube's `Impersonate-*` headers; kubectl's `--as`/`--as-group`). */
export interface Impersonation {
  readonly user: UserInfo;
  /** The groups named by the headers (the user's groups also hold `system:authenticated`). */
  readonly requestedGroups: readonly string[];
}

/**
 * The request's user: the one a verified client certificate names (CN the user, O the groups, plus
 * `system:authenticated`, as kube's x509 authenticator does), otherwise the fixed admin; then, if it
 * impersonates someone, that one (whether it may is the authorizer's question).
 */
export function requestUser(request: IncomingMessage): UserInfo {
  return impersonationOf(request)?.user ?? authenticatedUser(request);
}

/** Who sent the request, before any impersonation. */
export function authenticatedUser(request: IncomingMessage): UserInfo {
  return certificateUser(request.socket) ?? DEFAULT_USER;
}

export function impersonationOf(request: IncomingMessage): Impersonation | undefined {
  const { headers } = request;
  const username = headers['impersonate-user'];
  if (typeof username !== 'string' || username === '') return undefined;
  const requestedGroups = values(headers['impersonate-group']);
  // kube adds system:authenticated to impersonated users other than anonymous.
  const groups =
    username !== 'system:anonymous' && !requestedGroups.includes('system:authenticated')
      ? [...requestedGroups, 'system:authenticated']
      : [...requestedGroups];
  const uid = headers['impersonate-uid'];
  return { user: { username, groups, ...(typeof uid === 'string' && uid !== '' ? { uid } : {}) }, requestedGroups };
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
