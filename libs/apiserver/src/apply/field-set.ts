/**
 * Sets of field paths, as server-side apply records ownership: each path is a list of elements in
 * kube's `fieldsV1` spelling (`f:spec`, `k:{"name":"web"}`, `v:"x"`, `i:0`), and a set is serialized
 * as the nested `fieldsV1` object (`{}` for a member leaf, `.` for a member that also has children).
 * Operations are by member, as structured-merge-diff's are.
 */
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';

/** One path element, encoded as in `fieldsV1`. */
export type PathElement = string;
export type FieldPath = readonly PathElement[];

const SEPARATOR = '\u0000';

export const fieldElement = (name: string): PathElement => `f:${name}`;
export const valueElement = (value: JsonValue): PathElement => `v:${canonicalJson(value)}`;
export const indexElement = (index: number): PathElement => `i:${index}`;

/** A list item by its key fields (`k:{"containerPort":80,"protocol":"TCP"}`: keys sorted). */
export function keyElement(keys: Readonly<Record<string, JsonValue>>): PathElement {
  return `k:${canonicalJson(keys)}`;
}

/** JSON with object keys sorted, as Go's encoder writes maps. */
export function canonicalJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key]!)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

interface Node {
  member: boolean;
  readonly children: Map<PathElement, Node>;
}

export class FieldSet {
  /** Members by their elements joined with SEPARATOR (JSON escapes it, so no element holds it). */
  private readonly keys: Set<string>;
  private encoded: JsonObject | undefined;

  constructor(paths: Iterable<FieldPath> = []) {
    this.keys = new Set();
    for (const path of paths) this.insert(path);
  }

  private static ofKeys(keys: Iterable<string>): FieldSet {
    const set = new FieldSet();
    for (const key of keys) set.keys.add(key);
    return set;
  }

  insert(path: FieldPath): void {
    if (path.length === 0) return;
    this.keys.add(path.join(SEPARATOR));
    this.encoded = undefined;
  }

  has(path: FieldPath): boolean {
    return this.keys.has(path.join(SEPARATOR));
  }

  get size(): number {
    return this.keys.size;
  }

  isEmpty(): boolean {
    return this.keys.size === 0;
  }

  /** Members, sorted as kube lists them (by element, shorter paths first). */
  paths(): FieldPath[] {
    return [...this.keys].map((key) => key.split(SEPARATOR)).sort(comparePaths);
  }

  union(other: FieldSet): FieldSet {
    if (other.isEmpty()) return this;
    return FieldSet.ofKeys([...this.keys, ...other.keys]);
  }

  intersection(other: FieldSet): FieldSet {
    return FieldSet.ofKeys([...this.keys].filter((key) => other.keys.has(key)));
  }

  /** The members not in `other` (this set itself when none is). */
  difference(other: FieldSet): FieldSet {
    const kept = [...this.keys].filter((key) => !other.keys.has(key));
    return kept.length === this.keys.size ? this : FieldSet.ofKeys(kept);
  }

  /** Whether `path` or anything below it is a member. */
  touches(path: FieldPath): boolean {
    const key = path.join(SEPARATOR);
    if (this.keys.has(key)) return true;
    const prefix = key + SEPARATOR;
    for (const member of this.keys) if (member.startsWith(prefix)) return true;
    return false;
  }

  equals(other: FieldSet): boolean {
    return this.size === other.size && [...this.keys].every((key) => other.keys.has(key));
  }

  /** The `fieldsV1` object (kept: sets are not changed once built). */
  toFieldsV1(): JsonObject {
    if (this.encoded) return this.encoded;
    const root: Node = { member: false, children: new Map() };
    for (const key of this.keys) {
      let node = root;
      for (const element of key.split(SEPARATOR)) {
        let child = node.children.get(element);
        if (!child) {
          child = { member: false, children: new Map() };
          node.children.set(element, child);
        }
        node = child;
      }
      node.member = true;
    }
    this.encoded = encodeNode(root);
    return this.encoded;
  }

  /** Reads a `fieldsV1` object; throws naming the first element that is not of kube's forms. */
  static fromFieldsV1(fields: JsonValue | undefined): FieldSet {
    const set = new FieldSet();
    const walk = (node: JsonValue, path: PathElement[]): void => {
      if (!isObject(node)) throw new Error(`${path.join('')}: expected an object`);
      const children = Object.entries(node).filter(([key]) => key !== '.');
      if (children.length === 0 || Object.hasOwn(node, '.')) set.insert(path);
      for (const [element, child] of children) {
        if (!/^[fkvi]:/.test(element)) throw new Error(`unknown path element ${JSON.stringify(element)}`);
        walk(child, [...path, element]);
      }
    };
    if (fields !== undefined && fields !== null) walk(fields, []);
    return set;
  }
}

/** `{}` for a member leaf, `.` for a member with children; children in kube's order. */
function encodeNode(node: Node): JsonObject {
  const out: JsonObject = {};
  if (node.member && node.children.size > 0) out['.'] = {};
  for (const element of [...node.children.keys()].sort(compareElements)) {
    out[element] = encodeNode(node.children.get(element)!);
  }
  return out;
}

const KIND_ORDER = 'fkvi';

function compareElements(a: PathElement, b: PathElement): number {
  const kind = KIND_ORDER.indexOf(a[0]!) - KIND_ORDER.indexOf(b[0]!);
  if (kind !== 0) return kind;
  return a < b ? -1 : a > b ? 1 : 0;
}

function comparePaths(a: FieldPath, b: FieldPath): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const order = compareElements(a[i]!, b[i]!);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

/** A path as kube prints it in conflicts: `.spec.containers[name="web"].image`, `[="x"]`, `[0]`. */
export function pathString(path: FieldPath): string {
  return path
    .map((element) => {
      const body = element.slice(2);
      switch (element[0]) {
        case 'f':
          return `.${body}`;
        case 'k': {
          const keys = JSON.parse(body) as JsonObject;
          return `[${Object.entries(keys)
            .map(([name, value]) => `${name}=${canonicalJson(value)}`)
            .join(',')}]`;
        }
        case 'v':
          return `[=${body}]`;
        default:
          return `[${body}]`;
      }
    })
    .join('');
}
