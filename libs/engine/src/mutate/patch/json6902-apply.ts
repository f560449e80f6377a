/**
 * RFC 6902 operations with the options Kyverno turns on in evanphx/json-patch:
 * `EnsurePathExistsOnAdd` (add creates missing parents: objects, or arrays when the next token is an
 * index or `-`), `SupportNegativeIndices` (`-1` is the last element; for add, the end), and
 * `AllowMissingPathOnRemove`. Messages follow the library's. The input document is never modified:
 * containers on the way to a change are copied once, the rest is shared.
 */
import { cloneJson, deepEqual, isObject, setOwn, type JsonObject, type JsonValue } from '@edict/foundation';
import type { Operation } from './json6902-decode';
import { memberOverhead, type PatchedSize } from './patched-size';

export class PatchApplyError extends Error {}

type Container = JsonObject | JsonValue[];

const MISSING = 'missing value';
const INVALID_INDEX = 'invalid index referenced';
const INVALID_STATE = 'invalid state detected';

function isContainer(value: JsonValue | undefined): value is Container {
  return Array.isArray(value) || isObject(value);
}

/** RFC 6901 unescaping: `~1` is `/`, `~0` is `~` (in one left-to-right pass). */
function decodeToken(token: string): string {
  return token.replace(/~[01]/g, (escape) => (escape === '~1' ? '/' : '~'));
}

/** Go's strconv.Atoi, which accepts a sign and leading zeros. */
function atoi(text: string): number | undefined {
  return /^[+-]?\d+$/.test(text) ? Number(text) : undefined;
}

function atoiError(text: string): string {
  return `strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`;
}

function invalidIndex(index: number): string {
  return `Unable to access invalid index: ${index}: ${INVALID_INDEX}`;
}

type Lookup = { value: JsonValue; slot: string | number } | { error: string; missing: boolean };

/** A container's child: the empty key means the container itself (a quirk of the library). */
function lookup(container: Container, key: string): Lookup {
  if (key === '') return { value: container, slot: '' };
  if (!Array.isArray(container)) {
    if (!Object.hasOwn(container, key))
      return { error: `unable to get nonexistent key: ${key}: ${MISSING}`, missing: true };
    return { value: container[key]!, slot: key };
  }
  let index = atoi(key);
  if (index === undefined) return { error: atoiError(key), missing: false };
  if (index < 0) {
    if (index < -container.length) return { error: invalidIndex(index), missing: false };
    index += container.length;
  }
  if (index >= container.length) return { error: invalidIndex(index), missing: false };
  return { value: container[index]!, slot: index };
}

/** JSON text of one `null` array element and its comma: what a created array costs per slot. */
const NULL_ELEMENT = 5;

export class JsonPatcher {
  private root: JsonValue;
  private readonly owned = new WeakSet<object>();
  /** The operation being applied, as limit errors name it. */
  private current = '';

  /** `size`, when given, keeps the document within the document size limit (see PatchedSize). */
  constructor(
    document: JsonValue,
    private readonly size?: PatchedSize,
  ) {
    this.root = document;
  }

  get document(): JsonValue {
    return this.root;
  }

  /** `label` names the operation in limit errors ("operation 3"). */
  apply(operation: Operation, label = 'operation'): void {
    if (this.size) this.current = `the resource after JSON-patch ${label} (${operation.op} ${operation.path})`;
    switch (operation.op) {
      case 'add':
        return this.add(operation.path, operation.value ?? null);
      case 'remove':
        return this.remove(operation.path);
      case 'replace':
        return this.replace(operation.path, operation.value ?? null);
      case 'move':
        return this.move(operation.from!, operation.path);
      case 'copy':
        return this.copy(operation.from!, operation.path);
      case 'test':
        return this.test(operation.path, operation.value ?? null);
    }
  }

  /** Before a change adding `bytes` to the document: refused past the document size limit. */
  private grow(bytes: number): void {
    this.size?.admit(bytes, this.root, this.current);
  }

  /** What setting `key` of `container` to a value of `size` bytes adds (less what it replaces). */
  private growthAt(container: Container, key: string, size: number, replacing: boolean): number {
    if (!this.size) return 0;
    if (Array.isArray(container)) {
      if (!replacing) return size + 1;
      const index = atoi(key);
      const old = index === undefined ? undefined : container[index < 0 ? index + container.length : index];
      return old === undefined ? size : size - this.size.measure(old, false);
    }
    if (Object.hasOwn(container, key)) return size - this.size.measure(container[key]!, false);
    return size + memberOverhead(key);
  }

  private measure(value: JsonValue, shared: boolean): number {
    return this.size ? this.size.measure(value, shared) : 0;
  }

  private own<T extends Container>(value: T): T {
    if (this.owned.has(value)) return value;
    const copy = (Array.isArray(value) ? [...value] : { ...value }) as T;
    this.owned.add(copy);
    return copy;
  }

  private ownedRoot(): Container {
    if (!isContainer(this.root)) throw new PatchApplyError(INVALID_STATE);
    this.root = this.own(this.root);
    return this.root;
  }

  /** The whole document replaced by a copy of `value`. */
  private replaceRoot(value: Container): void {
    this.size?.replaceAll(this.measure(value, true), this.current);
    this.root = cloneJson(value);
  }

  /** Read-only walk to the parent of the last token; `undefined` when it does not lead to a container. */
  private find(path: string): { container: Container; key: string } | undefined {
    const tokens = path.split('/');
    if (tokens.length < 2) return path === '' && isContainer(this.root) ? { container: this.root, key: '' } : undefined;
    if (!isContainer(this.root)) return undefined;
    let doc: Container = this.root;
    for (const token of tokens.slice(1, -1)) {
      const next = lookup(doc, decodeToken(token));
      if ('error' in next || !isContainer(next.value)) return undefined;
      doc = next.value;
    }
    return { container: doc, key: decodeToken(tokens[tokens.length - 1]!) };
  }

  /** The same walk, copying each container so the last one can be changed. Call after `find` succeeded. */
  private findWritable(path: string): { container: Container; key: string } {
    const tokens = path.split('/');
    let doc = this.ownedRoot();
    if (tokens.length < 2) return { container: doc, key: '' };
    for (const token of tokens.slice(1, -1)) {
      doc = this.descend(doc, decodeToken(token));
    }
    return { container: doc, key: decodeToken(tokens[tokens.length - 1]!) };
  }

  private descend(doc: Container, key: string): Container {
    const next = lookup(doc, key);
    if ('error' in next || !isContainer(next.value)) throw new PatchApplyError(INVALID_STATE);
    if (next.slot === '') return doc;
    const child = this.own(next.value);
    if (typeof next.slot === 'number') (doc as JsonValue[])[next.slot] = child;
    else setOwn(doc as JsonObject, next.slot, child);
    return child;
  }

  private containerAdd(container: Container, key: string, value: JsonValue): string | undefined {
    if (!Array.isArray(container)) {
      setOwn(container, key, value);
      return undefined;
    }
    if (key === '-') {
      container.push(value);
      return undefined;
    }
    let index = atoi(key);
    if (index === undefined) return `value was not a proper array index: '${key}': ${atoiError(key)}`;
    const size = container.length + 1;
    if (index >= size) return invalidIndex(index);
    if (index < 0) {
      if (index < -size) return invalidIndex(index);
      index += size;
    }
    container.splice(index, 0, value);
    return undefined;
  }

  /** Removal; with AllowMissingPathOnRemove a missing key or index is not an error. */
  private containerRemove(container: Container, key: string): string | undefined {
    if (!Array.isArray(container)) {
      delete container[key];
      return undefined;
    }
    let index = atoi(key);
    if (index === undefined) return atoiError(key);
    if (index >= container.length) return undefined;
    if (index < 0) {
      if (index < -container.length) return undefined;
      index += container.length;
    }
    container.splice(index, 1);
    return undefined;
  }

  private containerSet(container: Container, key: string, value: JsonValue): string | undefined {
    if (!Array.isArray(container)) {
      setOwn(container, key, value);
      return undefined;
    }
    let index = atoi(key);
    if (index === undefined) return atoiError(key);
    if (index < 0) {
      if (index < -container.length) return invalidIndex(index);
      index += container.length;
    }
    container[index] = value;
    return undefined;
  }

  private add(path: string, value: JsonValue): void {
    if (path === '') {
      if (!isContainer(value))
        throw new PatchApplyError(`json: cannot unmarshal ${typeof value} into Go value of type jsonpatch.partialDoc`);
      this.replaceRoot(value);
      return;
    }
    const size = this.measure(value, true);
    this.ensurePathExists(path);
    if (!this.find(path))
      throw new PatchApplyError(`add operation does not apply: doc is missing path: "${path}": ${MISSING}`);
    const { container, key } = this.findWritable(path);
    this.grow(this.growthAt(container, key, size, false));
    const problem = this.containerAdd(container, key, cloneJson(value));
    if (problem) throw new PatchApplyError(`error in add for path: '${path}': ${problem}`);
  }

  /** EnsurePathExistsOnAdd: creates missing (or null) parents. Keys are created as written, unescaped. */
  private ensurePathExists(path: string): void {
    const tokens = path.split('/');
    if (tokens.length < 2) return;
    const parts = tokens.slice(1);
    let doc = this.ownedRoot();
    for (let i = 0; i < parts.length - 1; i++) {
      const part = parts[i]!;
      const target = lookup(doc, decodeToken(part));
      if ('error' in target || target.value === null) {
        const index = atoi(part);
        if (Array.isArray(doc) && index !== undefined && index >= doc.length + 1) {
          this.grow((index - doc.length) * NULL_ELEMENT);
          while (doc.length < index) doc.push(null);
        }
        const next = parts[i + 1]!;
        let nextIndex = atoi(next);
        let created: Container;
        if (nextIndex !== undefined || next === '-') {
          nextIndex ??= 0;
          if (nextIndex < 0) {
            if (nextIndex < -1) {
              throw new PatchApplyError(
                `Unable to ensure path for negative index other than -1: ${nextIndex}: ${INVALID_INDEX}`,
              );
            }
            nextIndex = 0;
          }
          this.grow(2 + nextIndex * NULL_ELEMENT);
          created = new Array<JsonValue>(nextIndex).fill(null);
        } else {
          this.grow(2 + memberOverhead(decodeToken(part)));
          created = {};
        }
        this.owned.add(created);
        // The library ignores a failed insertion here; the later lookup then reports the path missing.
        this.containerAdd(doc, part, created);
        doc = created;
        continue;
      }
      if (!isContainer(target.value)) throw new PatchApplyError(INVALID_STATE);
      doc = this.descend(doc, decodeToken(part));
    }
  }

  private remove(path: string): void {
    if (!this.find(path)) return;
    const { container, key } = this.findWritable(path);
    const problem = this.containerRemove(container, key);
    if (problem) throw new PatchApplyError(`error in remove for path: '${path}': ${problem}`);
  }

  private replace(path: string, value: JsonValue): void {
    if (path === '') {
      // The library silently ignores a root replacement by a scalar.
      if (isContainer(value)) this.replaceRoot(value);
      return;
    }
    const found = this.find(path);
    if (!found) throw new PatchApplyError(`replace operation does not apply: doc is missing path: ${path}: ${MISSING}`);
    if ('error' in lookup(found.container, found.key)) {
      throw new PatchApplyError(`replace operation does not apply: doc is missing key: ${path}: ${MISSING}`);
    }
    const { container, key } = this.findWritable(path);
    this.grow(this.growthAt(container, key, this.measure(value, true), true));
    const problem = this.containerSet(container, key, cloneJson(value));
    if (problem) throw new PatchApplyError(`error in remove for path: '${path}': ${problem}`);
  }

  private move(from: string, path: string): void {
    if (from === '') throw new PatchApplyError(`unable to move entire document to another path: ${INVALID_STATE}`);
    const source = this.find(from);
    if (!source)
      throw new PatchApplyError(`move operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
    const got = lookup(source.container, source.key);
    if ('error' in got) throw new PatchApplyError(`error in move for path: '${source.key}': ${got.error}`);
    const writable = this.findWritable(from);
    const removed = this.containerRemove(writable.container, writable.key);
    if (removed) throw new PatchApplyError(`error in move for path: '${source.key}': ${removed}`);
    if (!this.find(path))
      throw new PatchApplyError(`move operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
    const target = this.findWritable(path);
    const problem = this.containerAdd(target.container, target.key, got.value);
    if (problem) throw new PatchApplyError(`error in move for path: '${path}': ${problem}`);
  }

  private copy(from: string, path: string): void {
    const source = this.find(from);
    if (!source)
      throw new PatchApplyError(`copy operation does not apply: doc is missing from path: "${from}": ${MISSING}`);
    const got = lookup(source.container, source.key);
    if ('error' in got) throw new PatchApplyError(`error in copy for from: '${from}': ${got.error}`);
    if (!this.find(path))
      throw new PatchApplyError(`copy operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
    const target = this.findWritable(path);
    // Measured before it is copied: a chain of copies doubling the document stops at the limit.
    this.grow(this.growthAt(target.container, target.key, this.measure(got.value, false), false));
    const problem = this.containerAdd(target.container, target.key, cloneJson(got.value));
    if (problem) throw new PatchApplyError(`error while adding value during copy: ${problem}`);
  }

  private test(path: string, expected: JsonValue): void {
    const failed = new PatchApplyError(`testing value ${path} failed: test failed`);
    if (path === '') {
      if (!deepEqual(this.root, expected)) throw failed;
      return;
    }
    const found = this.find(path);
    if (!found) throw new PatchApplyError(`test operation does not apply: is missing path: ${path}: ${MISSING}`);
    const got = lookup(found.container, found.key);
    if ('error' in got && !got.missing) throw new PatchApplyError(`error in test for path: '${path}': ${got.error}`);
    const actual = 'error' in got ? null : got.value;
    if (actual === null || expected === null) {
      if (actual === null && expected === null) return;
      throw failed;
    }
    if (!deepEqual(actual, expected)) throw failed;
  }
}
