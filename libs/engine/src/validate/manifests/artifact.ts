import { gunzipSync } from 'node:zlib';
import { isObject, type JsonValue, isError, parseDocuments, BoundedCache } from '@edict/foundation';
import { decodeStdBase64 } from './base64';
import { readTar } from './tar';

/**
 * The `message` annotation of a signed resource: base64 of gzip of the signed artifact. The artifact
 * is what the signatures cover; it is a tar.gz of YAML files (what `kubectl sigstore sign` writes) or
 * plain YAML.
 */
export interface DecodedMessage {
  /** The signed bytes, or why the annotation is not base64. */
  payload: Buffer | Error;
  /** The YAML documents in the artifact, decoded on first use. */
  documents(): JsonValue[];
}

const decoded = new BoundedCache<DecodedMessage>(64);

export function decodeMessage(annotation: string): DecodedMessage {
  let message = decoded.get(annotation);
  if (!message) {
    message = newDecodedMessage(annotation);
    decoded.set(annotation, message);
  }
  return message;
}

function newDecodedMessage(annotation: string): DecodedMessage {
  let payload: Buffer | Error;
  try {
    payload = gunzipOrSelf(decodeStdBase64(annotation));
  } catch (error) {
    payload = error as Error;
  }
  let documents: JsonValue[] | Error | undefined;
  return {
    payload,
    documents() {
      if (documents === undefined) {
        try {
          documents = payload instanceof Error ? payload : yamlsInArtifact(payload);
        } catch (error) {
          documents = error as Error;
        }
      }
      if (documents instanceof Error) throw documents;
      return documents;
    },
  };
}

/** Like the Go helper: data that is not gzip is taken as it is. */
export function gunzipOrSelf(data: Buffer): Buffer {
  if (data.length < 2 || data[0] !== 0x1f || data[1] !== 0x8b) return data;
  try {
    return gunzipSync(data);
  } catch {
    return data;
  }
}

/** Plain YAML first; otherwise a tar.gz whose `.yaml`/`.yml` files describing an object are read. */
export function yamlsInArtifact(blob: Buffer): JsonValue[] {
  if (!looksBinary(blob)) {
    const documents = splitYamlDocuments(blob.toString('utf8'));
    if (documents.length > 0) return documents;
  }
  let tarball: Buffer;
  try {
    tarball = gunzipSync(blob);
  } catch {
    throw new Error('gzip.NewReader() failed while decompressing tar gz: gzip: invalid header');
  }
  let entries;
  try {
    entries = readTar(tarball);
  } catch (error) {
    throw new Error(`tarReader.Next() failed while decompressing tar gz: ${(error as Error).message}`);
  }
  const files = new Map<string, string>();
  for (const entry of entries) {
    if (entry.path.startsWith('..')) continue; // path traversal entries are skipped
    if (entry.type === '5') continue;
    if (entry.type !== '0') {
      throw new Error(`faced uknown type ${entry.type} in ${entry.path} while decompressing tar gz`);
    }
    files.set(cleanPath(entry.path), entry.data.toString('utf8'));
  }
  const yamls = [...files.entries()]
    .filter(([path, text]) => /\.ya?ml$/.test(baseName(path)) && describesObject(text))
    .sort(([a], [b]) => compareWalkOrder(a, b))
    .map(([, text]) => text);
  return splitYamlDocuments(yamls.join('\n---\n'));
}

/**
 * The documents of a multi-document YAML text, stopping at the first one that does not parse (as
 * Kubernetes' YAML stream decoder does). The items the reader expands from a `kind: List` document
 * are left out: a List is never the object under admission, so it can never be its manifest.
 */
export function splitYamlDocuments(text: string): JsonValue[] {
  const { documents, errors } = parseDocuments(text, 'message');
  const firstBroken = Math.min(...errors.filter(isError).map((e) => e.document ?? 0), Number.MAX_SAFE_INTEGER);
  const values: JsonValue[] = [];
  for (const document of documents) {
    if (document.index >= firstBroken) break;
    if (document.item === undefined) values.push(document.value);
  }
  return values;
}

/** The Go side keeps a file when its first document decodes as an object with a kind. */
function describesObject(text: string): boolean {
  const [first] = splitYamlDocuments(text);
  return isObject(first) && typeof first.kind === 'string' && first.kind !== '';
}

function looksBinary(data: Buffer): boolean {
  return (data.length >= 2 && data[0] === 0x1f && data[1] === 0x8b) || data.includes(0);
}

function cleanPath(path: string): string {
  return path
    .split('/')
    .filter((part) => part !== '' && part !== '.')
    .join('/');
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Directory walks visit names in sorted order per directory, so compare segment by segment. */
function compareWalkOrder(a: string, b: string): number {
  const left = a.split('/');
  const right = b.split('/');
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    if (left[i] !== right[i]) return left[i]! < right[i]! ? -1 : 1;
  }
  return left.length - right.length;
}
