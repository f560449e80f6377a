/**
 * A minimal tar reader for signed-manifest artifacts (ustar, with GNU long names and PAX paths, as
 * Go's archive/tar reads them). Only what k8s-manifest-sigstore needs: regular files and directories.
 */
export interface TarEntry {
  path: string;
  /** '0' regular file, '5' directory, or the raw type flag of anything else. */
  type: string;
  data: Buffer;
}

const BLOCK = 512;

export function readTar(archive: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  let offset = 0;
  let longName: string | undefined;
  let paxPath: string | undefined;
  while (offset + BLOCK <= archive.length) {
    const header = archive.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) break; // end-of-archive marker
    if (!checksumMatches(header)) throw new Error('archive/tar: invalid tar header');
    const size = parseOctal(header.subarray(124, 136));
    const typeFlag = header[156] === 0 ? '0' : String.fromCharCode(header[156]!);
    const dataStart = offset + BLOCK;
    if (dataStart + size > archive.length) throw new Error('unexpected EOF');
    const data = archive.subarray(dataStart, dataStart + size);
    offset = dataStart + Math.ceil(size / BLOCK) * BLOCK;

    if (typeFlag === 'L') {
      longName = cString(data);
      continue;
    }
    if (typeFlag === 'x') {
      paxPath = paxRecord(data, 'path') ?? paxPath;
      continue;
    }
    if (typeFlag === 'g') continue; // global PAX defaults carry no path of ours
    const path = paxPath ?? longName ?? headerName(header);
    longName = undefined;
    paxPath = undefined;
    entries.push({ path, type: typeFlag, data });
  }
  return entries;
}

function headerName(header: Buffer): string {
  const name = cString(header.subarray(0, 100));
  const isUstar = header.subarray(257, 262).toString('latin1') === 'ustar';
  const prefix = isUstar ? cString(header.subarray(345, 500)) : '';
  return prefix ? `${prefix}/${name}` : name;
}

function cString(bytes: Buffer): string {
  const end = bytes.indexOf(0);
  return bytes.subarray(0, end < 0 ? bytes.length : end).toString('utf8');
}

function parseOctal(field: Buffer): number {
  const text = cString(field).trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) throw new Error('archive/tar: invalid tar header');
  return parseInt(text, 8);
}

function checksumMatches(header: Buffer): boolean {
  const recorded = parseOctal(header.subarray(148, 156));
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
  return sum === recorded;
}

/** PAX records read `<length> <key>=<value>\n`. */
function paxRecord(data: Buffer, key: string): string | undefined {
  let found: string | undefined;
  let rest = data.toString('utf8');
  while (rest.length > 0) {
    const space = rest.indexOf(' ');
    const length = Number(rest.slice(0, space));
    if (space < 0 || !Number.isInteger(length) || length <= 0) break;
    const record = Buffer.from(rest, 'utf8').subarray(0, length).toString('utf8');
    const body = record.slice(space + 1).replace(/\n$/, '');
    const equals = body.indexOf('=');
    if (equals > 0 && body.slice(0, equals) === key) found = body.slice(equals + 1);
    rest = Buffer.from(rest, 'utf8').subarray(length).toString('utf8');
  }
  return found;
}
