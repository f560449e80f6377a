import {
  Document,
  LineCounter,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  parseAllDocuments,
  type Node,
  type ParsedNode,
  type ScalarTag,
  type Tags,
} from 'yaml';
import { errorMessage } from '../errors/error-message';
import { isObject, setOwn, type JsonObject, type JsonValue } from '../json';
import { parsePath, type Diagnostic, type PathSegment } from './diagnostics';
import { deepFlowNesting, deepValuePath, nestingMessage } from './nesting';

/** One Kubernetes-style object read from a file (a whole YAML document, or one item of a List). */
export interface SourceDocument {
  value: JsonValue;
  file: string;
  /** 0-based position of the YAML document in the file. */
  index: number;
  /** 1-based line where the object starts. */
  line: number;
  /** Position inside `items` when the object came from a `kind: List` document. */
  item?: number;
}

export interface ParsedDocuments {
  documents: SourceDocument[];
  /** Errors (documents skipped) and warnings (documents kept); see `isError`. */
  errors: Diagnostic[];
}

/** Where a SourceDocument came from, kept aside so that field lines can be looked up on demand. */
interface Origin {
  doc: Document.Parsed;
  lines: LineCounter;
  base: PathSegment[];
}
const origins = new WeakMap<SourceDocument, Origin>();

/**
 * Kubernetes reads YAML with go-yaml v2 (YAML 1.1): `yes`/`on`/`y` are booleans and `0777` is octal,
 * but timestamps stay strings and `1:30` is not a base-60 number. Go's integer parsing also takes
 * `0o17` and `0b101`.
 */
const goOctal: ScalarTag = {
  identify: (value) => typeof value === 'number',
  default: true,
  tag: 'tag:yaml.org,2002:int',
  format: 'OCT',
  test: /^[-+]?0o[0-7_]+$/,
  resolve: (source: string) => {
    const sign = source.startsWith('-') ? -1 : 1;
    return sign * parseInt(source.replace(/^[-+]?0o/, '').replace(/_/g, ''), 8);
  },
};
function kubernetesTags(tags: Tags): Tags {
  const kept = tags.filter((tag) => {
    const t = tag as ScalarTag;
    if (t.tag === 'tag:yaml.org,2002:timestamp') return false;
    return t.format !== 'TIME';
  });
  return [...kept, goOctal];
}

const parseOptions = { version: '1.1' as const, customTags: kubernetesTags, merge: true };

/**
 * Splits multi-document YAML into objects, expanding `kind: List` documents into their items. Never
 * throws: syntax errors become diagnostics and only the broken document is skipped.
 */
export function parseDocuments(text: string, file: string): ParsedDocuments {
  const documents: SourceDocument[] = [];
  const errors: Diagnostic[] = [];
  const lines = new LineCounter();
  const deep = deepFlowNesting(text);
  if (deep) {
    // Refused before parsing: the parser would spend seconds, then run out of stack.
    errors.push({ file, document: deep.document, line: deep.line, message: nestingMessage() });
    return { documents, errors };
  }
  let parsed: Document.Parsed[];
  try {
    const result = parseAllDocuments(text, { ...parseOptions, lineCounter: lines });
    parsed = Array.isArray(result) ? result : [];
  } catch (error) {
    // Where the stack runs out depends on how deep the caller already is: the parser may throw it.
    const message = error instanceof RangeError ? nestingMessage() : `cannot parse YAML: ${errorMessage(error)}`;
    errors.push({ file, message });
    return { documents, errors };
  }

  parsed.forEach((doc, index) => {
    let broken = false;
    for (const problem of [...doc.errors, ...doc.warnings]) {
      // A repeated key keeps the last value, as Kubernetes' non-strict YAML→JSON does: warn only.
      const fatal = doc.errors.includes(problem) && problem.code !== 'DUPLICATE_KEY';
      broken ||= fatal;
      const pos = problem.linePos?.[0];
      // The parser reports its stack running out (block collections nested some 800 deep) as an error.
      const tooDeep = problem.message.startsWith('Maximum call stack size exceeded');
      errors.push({
        file,
        document: index,
        line: pos?.line,
        column: pos?.col,
        message: tooDeep ? nestingMessage() : cleanYamlMessage(problem.message),
        ...(fatal ? {} : { severity: 'warning' as const }),
      });
    }
    if (broken || doc.contents === null) return;

    let value: JsonValue;
    try {
      value = toJsonValue(doc.toJS({ maxAliasCount: 1000 }));
    } catch (error) {
      const message = error instanceof RangeError ? nestingMessage() : errorMessage(error);
      errors.push({ file, document: index, line: lineAt(lines, doc.contents), message });
      return;
    }
    if (value === null) return; // a document holding only comments or `~`
    const deepPath = deepValuePath(value);
    if (deepPath !== undefined) {
      errors.push({
        file,
        document: index,
        line: lineAt(lines, doc.contents),
        message: `${nestingMessage()} at ${deepPath}`,
      });
      return;
    }

    if (isList(value)) {
      const itemNodes = listItemNodes(doc);
      value.items.forEach((item, i) => {
        const node = itemNodes?.[i];
        add(
          {
            value: item,
            file,
            index,
            line: (node ? lineAt(lines, node) : undefined) ?? lineAt(lines, doc.contents) ?? 1,
            item: i,
          },
          ['items', i],
        );
      });
      return;
    }
    add({ value, file, index, line: lineAt(lines, doc.contents) ?? 1 }, []);

    function add(source: SourceDocument, base: PathSegment[]): void {
      origins.set(source, { doc, lines, base });
      documents.push(source);
    }
  });
  return { documents, errors };
}

/**
 * Line of a field inside a parsed document (`spec.rules[1].validate` or segments). When the field is
 * absent, the line of its deepest existing ancestor, so that "missing field" errors point somewhere
 * useful. Undefined for documents that did not come from {@link parseDocuments}.
 */
export function fieldLine(source: SourceDocument, path: string | readonly PathSegment[]): number | undefined {
  const origin = origins.get(source);
  if (!origin) return undefined;
  const segments = [...origin.base, ...(typeof path === 'string' ? parsePath(path) : path)];
  let node: unknown = origin.doc.contents;
  let line = lineAt(origin.lines, node);
  for (const segment of segments) {
    node = resolveAlias(node, origin.doc);
    if (isMap(node)) {
      const pair = node.items.find((p) => keyText(p.key) === String(segment));
      if (!pair) break;
      line = lineAt(origin.lines, pair.key) ?? line;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment];
      if (node === undefined) break;
      line = lineAt(origin.lines, node) ?? line;
    } else {
      break;
    }
    if (node === null || node === undefined) break;
  }
  return line;
}

function isList(value: JsonValue): value is JsonObject & { items: JsonValue[] } {
  // Kubernetes treats any `...List` kind with an items array as a list (List, PodList, PolicyList, ...).
  return isObject(value) && typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items);
}

function listItemNodes(doc: Document.Parsed): unknown[] | undefined {
  const root = doc.contents;
  if (!isMap(root)) return undefined;
  const pair = root.items.find((p) => keyText(p.key) === 'items');
  const items = resolveAlias(pair?.value, doc);
  return isSeq(items) ? items.items : undefined;
}

function resolveAlias(node: unknown, doc: Document.Parsed): unknown {
  return isAlias(node) ? node.resolve(doc as unknown as Document) : node;
}

function keyText(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  if (key === null || key === undefined) return undefined;
  return typeof key === 'object' ? undefined : String(key);
}

function lineAt(lines: LineCounter, node: unknown): number | undefined {
  const range = (node as Node | ParsedNode | null | undefined)?.range;
  return range ? lines.linePos(range[0]).line : undefined;
}

/** The yaml library appends "at line X, column Y:" and a code excerpt; we report those separately. */
function cleanYamlMessage(message: string): string {
  const firstLine = message.split('\n')[0];
  return firstLine.replace(/ at line \d+, column \d+:?$/, '').replace(/:$/, '');
}

/** Converts what yaml's toJS produces into plain JSON, as Kubernetes' YAML→JSON conversion does. */
function toJsonValue(value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new Error(`unsupported value ${value} (JSON has no infinity or NaN)`);
      return value;
    case 'bigint':
      return Number(value);
    case 'object':
      break;
    default:
      return String(value);
  }
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (value instanceof Uint8Array) return btoa(String.fromCharCode(...value));
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Map) {
    const out: JsonObject = {};
    for (const [k, v] of value) setOwn(out, String(k), toJsonValue(v));
    return out;
  }
  if (value instanceof Set) {
    const out: JsonObject = {};
    for (const k of value) setOwn(out, String(k), null);
    return out;
  }
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) setOwn(out, k, toJsonValue(v));
  return out;
}
