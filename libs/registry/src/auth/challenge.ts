/** `WWW-Authenticate` challenges (RFC 9110 §11.6.1): `Bearer realm="…",service="…",scope="…"` or `Basic realm="…"`. */

export interface AuthChallenge {
  /** Lower-case: `bearer`, `basic`, … */
  readonly scheme: string;
  readonly params: Readonly<Record<string, string>>;
}

const MAX_HEADER_CHARS = 8192;

/** The first challenge of the header, or undefined when there is none or it cannot be read. */
export function parseAuthChallenge(header: string | string[] | undefined): AuthChallenge | undefined {
  const text = Array.isArray(header) ? header[0] : header;
  if (!text || text.length > MAX_HEADER_CHARS) return undefined;
  const schemeMatch = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*/.exec(text);
  if (!schemeMatch) return undefined;
  const params: Record<string, string> = {};
  let rest = text.slice(schemeMatch[0].length);
  const param = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))\s*(?:,\s*|$)/;
  while (rest.length > 0) {
    const match = param.exec(rest);
    // A second challenge (`Basic realm=…, Bearer …`) or a token68 ends the first one's parameters.
    if (!match) break;
    params[match[1].toLowerCase()] = match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : match[3];
    rest = rest.slice(match[0].length);
  }
  return { scheme: schemeMatch[1].toLowerCase(), params };
}
