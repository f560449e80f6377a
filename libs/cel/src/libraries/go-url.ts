/**
 * URLs as Go's net/url parses them (what Kubernetes' CEL URL library uses): no normalization (the
 * host keeps its case, the path its dots, a default port stays), the scheme lowercased, the path
 * escaped as EscapedPath does. Errors read as Go's (`parse "x": invalid URI for request`).
 */
export interface GoUrl {
  readonly scheme: string;
  readonly opaque: string;
  readonly host: string;
  /** The path, unescaped. */
  readonly path: string;
  /** The path as written, when it differs from escaping `path` again (Go's RawPath). */
  readonly rawPath: string;
  readonly rawQuery: string;
}

export class GoUrlError extends Error {}

/** Go's url.ParseRequestURI (an absolute URI or an absolute path) when `viaRequest`, else url.Parse. */
export function parseGoUrl(text: string, viaRequest: boolean): GoUrl {
  const fail = (why: string): never => {
    throw new GoUrlError(`parse ${JSON.stringify(text)}: ${why}`);
  };
  if ([...text].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f)) {
    fail('net/url: invalid control character in URL');
  }
  const withoutFragment = viaRequest ? text : text.split('#')[0]!;
  if (withoutFragment === '' && viaRequest) fail('empty url');
  const { scheme, rest: afterScheme } = splitScheme(withoutFragment, fail);
  let rest = afterScheme;
  let rawQuery = '';
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
  else {
    const question = rest.indexOf('?');
    if (question >= 0) {
      rawQuery = rest.slice(question + 1);
      rest = rest.slice(0, question);
    }
  }
  if (!rest.startsWith('/')) {
    if (scheme !== '') return { scheme, opaque: rest, host: '', path: '', rawPath: '', rawQuery };
    if (viaRequest) fail('invalid URI for request');
    if (/^[^/]*:/.test(rest)) fail('first path segment in URL cannot contain colon');
  }
  let host = '';
  if ((scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    host = parseAuthority(authority, fail);
  }
  const path = unescape(rest, 'path', fail);
  return { scheme, opaque: '', host, path, rawPath: escapePath(path) === rest ? '' : rest, rawQuery };
}

function splitScheme(text: string, fail: (why: string) => never): { scheme: string; rest: string } {
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+.-]/.test(c)) {
      if (i === 0) return { scheme: '', rest: text };
      continue;
    }
    if (c === ':') {
      if (i === 0) fail('missing protocol scheme');
      return { scheme: text.slice(0, i).toLowerCase(), rest: text.slice(i + 1) };
    }
    return { scheme: '', rest: text };
  }
  return { scheme: '', rest: text };
}

const USERINFO = /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/;

function parseAuthority(authority: string, fail: (why: string) => never): string {
  const at = authority.lastIndexOf('@');
  if (at >= 0 && !USERINFO.test(authority.slice(0, at))) fail('net/url: invalid userinfo');
  const host = at >= 0 ? authority.slice(at + 1) : authority;
  if (host.startsWith('[')) {
    const close = host.lastIndexOf(']');
    if (close < 0) fail("missing ']' in host");
    const port = host.slice(close + 1);
    if (!validOptionalPort(port)) fail(`invalid port ${JSON.stringify(port)} after host`);
  } else {
    const colon = host.lastIndexOf(':');
    if (colon >= 0 && !validOptionalPort(host.slice(colon))) {
      fail(`invalid port ${JSON.stringify(host.slice(colon))} after host`);
    }
  }
  return unescape(host, 'host', fail);
}

function validOptionalPort(port: string): boolean {
  return port === '' || /^:[0-9]*$/.test(port);
}

/** ASCII a host may hold (Go's shouldEscape in host mode is false for these). */
const HOST_ASCII = /^[A-Za-z0-9\-._~!$&'()*+,;=:[\]<>"]$/;

function unescape(text: string, mode: 'path' | 'host', fail: (why: string) => never): string {
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '%') {
      const hex = chars.slice(i + 1, i + 3).join('');
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) fail(`invalid URL escape ${JSON.stringify(`%${hex}`)}`);
      bytes.push(parseInt(hex, 16));
      i += 2;
      continue;
    }
    if (mode === 'host' && c.charCodeAt(0) < 0x80 && !HOST_ASCII.test(c)) {
      fail(`invalid character ${JSON.stringify(c)} in host name`);
    }
    bytes.push(...encoder.encode(c));
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** Go's escape(path, encodePath): every byte but unreserved characters and $&+,/:;=@ percent-encoded. */
function escapePath(path: string): string {
  let out = '';
  for (const byte of new TextEncoder().encode(path)) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~$&+,/:;=@]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Go's URL.EscapedPath: the path as written when it is validly escaped, else the path escaped. */
export function escapedPath(url: GoUrl): string {
  if (url.rawPath && validEncodedPath(url.rawPath)) return url.rawPath;
  return url.path === '*' ? '*' : escapePath(url.path);
}

function validEncodedPath(raw: string): boolean {
  return /^[A-Za-z0-9\-._~!$&'()*+,;=:@[\]%/]*$/.test(raw);
}

/** Go's URL.Hostname and URL.Port: the host without its port and brackets, and the port. */
export function splitHostPort(host: string): { hostname: string; port: string } {
  let hostname = host;
  let port = '';
  const colon = host.lastIndexOf(':');
  if (colon >= 0 && validOptionalPort(host.slice(colon))) {
    hostname = host.slice(0, colon);
    port = host.slice(colon + 1);
  }
  if (hostname.startsWith('[') && hostname.endsWith(']')) hostname = hostname.slice(1, -1);
  return { hostname, port };
}

/** Go's url.ParseQuery, keeping the pairs that parse (as URL.Query does). */
export function parseGoQuery(rawQuery: string): Record<string, string[]> {
  const query: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const pair of rawQuery.split('&')) {
    if (pair === '' || pair.includes(';')) continue;
    const equals = pair.indexOf('=');
    const [key, value] = equals >= 0 ? [pair.slice(0, equals), pair.slice(equals + 1)] : [pair, ''];
    try {
      const decode = (part: string): string => decodeURIComponentStrict(part.replace(/\+/g, ' '));
      const [name, decoded] = [decode(key), decode(value)];
      (query[name] ??= []).push(decoded);
    } catch {
      continue;
    }
  }
  return query;
}

function decodeURIComponentStrict(text: string): string {
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i++) {
    if (chars[i] === '%') {
      const hex = chars.slice(i + 1, i + 3).join('');
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw new GoUrlError('invalid escape');
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else bytes.push(...encoder.encode(chars[i]!));
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}
