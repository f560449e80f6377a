/**
 * Sets of field paths, as server-side apply records ownership: each path is a list of elements in
 * kube's `fieldsV1` spelling (`f:spec`, `k:{"name":"web"}`, `v:"x"`, `i:0`), and a set is serialized
 * as the nested `fieldsV1` object (`{}` for a member leaf, `.` for a member that also has children).
 * Operations are by member, as structured-merge-diff's are; `withoutSubtrees` removes whole subtrees.
 */
import { isObject, type JsonObject, type JsonValue } from '@edict/engine';

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

export class FieldSet {
  private readonly members = new Map<string, FieldPath>();

  constructor(paths: Iterable<FieldPath> = []) {
    for (const path of paths) this.insert(path);
  }

  insert(path: FieldPath): void {
    if (path.length > 0) this.members.set(path.join(SEPARATOR), [...path]);
  }

  has(path: FieldPath): boolean {
    return this.members.has(path.join(SEPARATOR));
  }

  get size(): number {
    return this.members.size;
  }

  isEmpty(): boolean {
    return this.members.size === 0;
  }

  /** Members, sorted as kube lists them (by element, shorter paths first). */
  paths(): FieldPath[] {
    return [...this.members.values()].sort(comparePaths);
  }

  union(other: FieldSet): FieldSet {
    return new FieldSet([...this.members.values(), ...other.members.values()]);
  }

  intersection(other: FieldSet): FieldSet {
    return new FieldSet([...this.members.values()].filter((path) => other.has(path)));
  }

  difference(other: FieldSet): FieldSet {
    return new FieldSet([...this.members.values()].filter((path) => !other.has(path)));
  }

  /** Members outside every subtree rooted at a member of `other` (ignored fields go with their children). */
  withoutSubtrees(other: FieldSet): FieldSet {
    return new FieldSet(
      [...this.members.values()].filter((path) => !path.some((_, i) => other.has(path.slice(0, i + 1)))),
    );
  }

  /** Whether `path` or anything below it is a member. */
  touches(path: FieldPath): boolean {
    if (this.has(path)) return true;
    const prefix = path.join(SEPARATOR) + SEPARATOR;
    for (const key of this.members.keys()) if (key.startsWith(prefix)) return true;
    return false;
  }

  equals(other: FieldSet): boolean {
    return this.size === other.size && [...this.members.keys()].every((key) => other.members.has(key));
  }

  /** The `fieldsV1` object. */
  toFieldsV1(): JsonObject {
    const root: JsonObject = {};
    for (const path of this.paths()) {
      let node = root;
      path.forEach((element, index) => {
        const leaf = index === path.length - 1;
        let child = node[element] as JsonObject | undefined;
        if (!child) {
          child = {};
          node[element] = child;
        }
        if (leaf && Object.keys(child).length > 0) child['.'] = {};
        if (!leaf && !isMember(child) && this.has(path.slice(0, index + 1))) child['.'] = {};
        node = child;
      });
    }
    return sortFieldsV1(root);
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

function isMember(node: JsonObject): boolean {
  return Object.hasOwn(node, '.');
}

/** `.` first, then field names, keys, values and indices, each in order. */
function sortFieldsV1(node: JsonObject): JsonObject {
  const sorted: JsonObject = {};
  const keys = Object.keys(node).sort((a, b) => (a === '.' ? -1 : b === '.' ? 1 : compareElements(a, b)));
  for (const key of keys) sorted[key] = sortFieldsV1(node[key] as JsonObject);
  return sorted;
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
