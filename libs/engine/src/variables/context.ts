import {
  EvaluationBudget,
  isBudgetError,
  copyGaining,
  type JsonObject,
  type JsonValue,
  errorMessage,
} from '@edict/foundation';
import type { ResourceRequest } from '../core/types';
import { compileJmesPath, type JmesPathQuery } from '@edict/jmespath';
import { mergeObjects, nest, splitVariableName } from './context-data';
import { ContextQueryError } from './errors';
import { admissionDocument, populateFromRequest } from './request-context';

/** Loads a context entry into the context when a query first mentions it. */
export type DeferredLoad = (ctx: EvaluationContext) => void;

interface DeferredLoader {
  readonly name: string;
  readonly matcher: RegExp;
  readonly load: DeferredLoad;
  loaded: boolean;
  /** Tried since the last reset/restore (Kyverno tries a loader once per level, even if it fails). */
  attempted: boolean;
}

/** A context entry that could not be loaded, kept to explain queries that then miss it. */
interface LoadFailure {
  readonly name: string;
  readonly matcher: RegExp;
  readonly reason: string;
}

/**
 * Query results against one document, shared by the contexts forked from the one that started it:
 * a request's context is forked for every policy, and their rules ask the same questions of it
 * (`request.operation`, the Pod's container list). Documents are never mutated, so a query that
 * depends on the data alone gives the same result on the same document; results are kept only
 * under the size limits they were checked against.
 */
interface SharedResults {
  readonly root: JsonObject;
  /** The result size limit the kept results were checked against (set by the first search). */
  maxResultSize: number | undefined;
  readonly results: Map<JmesPathQuery, JsonValue>;
}

/** Past this many distinct queries on one document, further results are not kept. */
const MAX_SHARED_RESULTS = 256;

interface Snapshot {
  readonly root: JsonObject;
  readonly entriesSize: number;
  readonly loaderCount: number;
  readonly failureCount: number;
  readonly loaded: readonly boolean[];
}

/**
 * The JSON document that variables and JMESPath queries read (Kyverno's engine context): `request`,
 * `serviceAccountName`, context entries, foreach `element`s, values from the CLI...
 *
 * Data is never mutated in place: every write copies the objects on its path, so `checkpoint()` is
 * just a saved reference and `restore()`/`reset()` are O(1). Values passed in and query results are
 * shared with the context and must be treated as read-only.
 *
 * The budget bounds every query (deadline, result sizes) and the rule context entries' total size.
 */
export class EvaluationContext {
  private root: JsonObject;
  /** What the rule context entries added so far weigh (Kyverno's context size). */
  private entriesSize = 0;
  private readonly snapshots: Snapshot[] = [];
  private readonly loaders: DeferredLoader[] = [];
  private readonly failures: LoadFailure[] = [];
  /** While a deferred loader runs, only loaders registered before it may load (no cycles). */
  private loadingLimit = -1;
  private operationValue: string | undefined;
  private shared: SharedResults | undefined;

  constructor(
    document: JsonObject = {},
    readonly budget: EvaluationBudget = new EvaluationBudget(),
  ) {
    this.root = document;
  }

  /**
   * A new context starting from this one's current data and operation, with no checkpoints or
   * deferred loaders of its own. Cheap (data is shared, never mutated), so a request's context can be
   * built once and forked for every policy evaluated on it, each under its own budget.
   */
  fork(budget: EvaluationBudget = this.budget): EvaluationContext {
    const copy = new EvaluationContext(this.root, budget);
    copy.operationValue = this.operationValue;
    copy.shared = this.shared;
    return copy;
  }

  /**
   * From now on, results of queries against the current document are kept and shared with the
   * forks of this context (see `SharedResults`). For a request's context, forked per policy.
   */
  shareQueryResults(): void {
    this.shared = { root: this.root, maxResultSize: undefined, results: new Map() };
  }

  /**
   * A context holding what Kyverno puts there for a request: the admission request as `request`
   * (or, without one, `request.object`/`oldObject`, `namespace`, `operation` as the CLI and
   * background scans do), the requesting user's roles and info, `serviceAccountName` and
   * `serviceAccountNamespace`.
   */
  static forRequest(request: ResourceRequest): EvaluationContext {
    if (request.admissionRequest) {
      const { document, operation } = admissionDocument(request, request.admissionRequest);
      const ctx = new EvaluationContext(document);
      ctx.operationValue = operation;
      return ctx;
    }
    const ctx = new EvaluationContext();
    populateFromRequest(ctx, request);
    return ctx;
  }

  /**
   * Merges a value at a dotted name (`request.operation`, `"a.b".c`): objects merge with what is
   * there, other values replace it (Kyverno's AddVariable / AddContextEntry).
   */
  add(name: string, value: JsonValue): void {
    this.root = mergeObjects(this.root, nest(splitVariableName(name), value), false);
  }

  /**
   * A rule context entry: charged to the context size limit (EvaluationLimitExceeded past it), then
   * replaced (`variable` entries) or merged like `add`.
   */
  addEntry(name: string, value: JsonValue, replace: boolean): void {
    this.entriesSize = this.budget.chargeContext(this.entriesSize, value, name);
    if (replace) this.replace(name, value);
    else this.add(name, value);
  }

  /** Replaces whatever is at the dotted name (Kyverno's ReplaceContextEntry, AddResource). */
  replace(name: string, value: JsonValue): void {
    const fields = splitVariableName(name);
    this.root = mergeObjects(this.root, nest(fields, null), false);
    this.root = mergeObjects(this.root, nest(fields, value), false);
  }

  /** Sets `element`, `elementIndex` and their `<nesting>`-suffixed twins, replacing previous ones. */
  addElement(element: JsonValue, index: number, nesting: number): void {
    // What mergeObjects(root, { element, elementN, elementIndex, elementIndexN }, true) gives, without
    // building the computed-key object (slow in V8) per foreach element.
    const names = elementNames(nesting);
    const root = copyGaining(this.root, names.all);
    root['element'] = element;
    root[names.element] = element;
    root['elementIndex'] = index;
    root[names.elementIndex] = index;
    this.root = root;
  }

  /** The resource a mutate-existing rule is working on, as `target` (enables `{{@}}` on it). */
  setTarget(resource: JsonObject): void {
    this.replace('target', resource);
  }

  /** Sets `request.operation` and the operation used for DELETE handling. */
  setOperation(operation: string): void {
    this.add('request.operation', operation);
    this.operationValue = operation;
  }

  /** The admission operation; on DELETE, variables naming `request.object` read `request.oldObject`. */
  operation(): string {
    if (this.operationValue !== undefined) return this.operationValue;
    const request = this.root['request'];
    const operation =
      request !== null && typeof request === 'object' && !Array.isArray(request) ? request['operation'] : undefined;
    return typeof operation === 'string' ? operation : '';
  }

  /**
   * Evaluates JMESPath against the document. Throws ContextQueryError with Kyverno's messages; a key
   * missing along a path is an error (`Unknown key "x" in path`), a null value is not.
   */
  query(expression: string): JsonValue {
    this.loadDeferred(expression);
    const trimmed = expression.trim();
    if (trimmed === '') throw new ContextQueryError('invalid query (nil)');
    let compiled: JmesPathQuery;
    try {
      compiled = compileJmesPath(trimmed);
    } catch (error) {
      throw new ContextQueryError(`incorrect query ${trimmed}: ${errorMessage(error)}`);
    }
    return this.searchLoaded(compiled);
  }

  /**
   * `query` for an expression compiled beforehand (a policy's, prepared once): the same deferred
   * loads, result and errors, without parsing or looking the expression up again.
   */
  search(compiled: JmesPathQuery): JsonValue {
    this.loadDeferred(compiled.expression);
    return this.searchLoaded(compiled);
  }

  private searchLoaded(compiled: JmesPathQuery): JsonValue {
    const shared = this.sharedResultsFor(compiled);
    if (shared) {
      const known = shared.get(compiled);
      if (known !== undefined || shared.has(compiled)) return known as JsonValue;
    }
    try {
      const result = compiled.search(this.root, this.budget);
      if (shared && shared.size < MAX_SHARED_RESULTS) shared.set(compiled, result);
      return result;
    } catch (error) {
      if (isBudgetError(error)) throw error;
      const expression = compiled.expression;
      const failure = isNotFound(error) ? this.failures.find((f) => f.matcher.test(expression)) : undefined;
      const cause = failure ? `; context entry ${failure.name} could not be loaded: ${failure.reason}` : '';
      throw new ContextQueryError(`JMESPath query failed: ${errorMessage(error)}${cause}`, isNotFound(error));
    }
  }

  /** The shared results that hold for this query on the current document under this budget's result limit. */
  private sharedResultsFor(compiled: JmesPathQuery): Map<JmesPathQuery, JsonValue> | undefined {
    const shared = this.shared;
    if (!shared || shared.root !== this.root || !compiled.dataOnly) return undefined;
    const limit = this.budget.limits.maxResultSize;
    if (shared.maxResultSize === undefined) shared.maxResultSize = limit;
    return shared.maxResultSize === limit ? shared.results : undefined;
  }

  /** The current document (read-only). */
  document(): JsonObject {
    return this.root;
  }

  /** Saves the current state on a stack (cheap: the document is copy-on-write). */
  checkpoint(): void {
    this.snapshots.push({
      root: this.root,
      entriesSize: this.entriesSize,
      loaderCount: this.loaders.length,
      failureCount: this.failures.length,
      loaded: this.loaders.length === 0 ? NONE_LOADED : this.loaders.map((loader) => loader.loaded),
    });
  }

  /** Returns to the last checkpoint and removes it. No-op without a checkpoint. */
  restore(): void {
    const snapshot = this.snapshots.pop();
    if (snapshot) this.apply(snapshot);
  }

  /** Returns to the last checkpoint and keeps it (per foreach iteration). No-op without one. */
  reset(): void {
    const snapshot = this.snapshots[this.snapshots.length - 1];
    if (snapshot) this.apply(snapshot);
  }

  /**
   * Registers a context entry to load on first use: the loader runs when a query mentions `name`
   * as a word not preceded by `.` (Kyverno's deferred loading). A loader that throws leaves the
   * entry undefined, as Kyverno logs and continues (its reason noted as by `noteLoadFailure`); it
   * is retried after the next reset/restore.
   * Loaders registered after a checkpoint are dropped when returning to it.
   */
  addDeferredLoader(name: string, load: DeferredLoad): void {
    this.loaders.push({ name, matcher: nameMatcher(name), load, loaded: false, attempted: false });
  }

  /**
   * Records that a context entry could not be loaded (Kyverno leaves it unset and logs why): a query
   * that then fails on the missing name says why it is missing. Dropped when returning to an
   * earlier checkpoint, like deferred loaders.
   */
  noteLoadFailure(name: string, reason: string): void {
    this.failures.push({ name, matcher: nameMatcher(name), reason });
  }

  private apply(snapshot: Snapshot): void {
    this.root = snapshot.root;
    this.entriesSize = snapshot.entriesSize;
    // Assigning an array's length costs even when it does not change (every foreach element resets).
    if (this.loaders.length !== snapshot.loaderCount) this.loaders.length = snapshot.loaderCount;
    if (this.failures.length !== snapshot.failureCount) this.failures.length = snapshot.failureCount;
    this.loaders.forEach((loader, index) => {
      loader.loaded = snapshot.loaded[index] ?? false;
      loader.attempted = false;
    });
  }

  private loadDeferred(query: string): void {
    const limit = this.loadingLimit >= 0 ? this.loadingLimit : this.loaders.length;
    for (let index = 0; index < limit && index < this.loaders.length; index++) {
      const loader = this.loaders[index] as DeferredLoader;
      if (loader.loaded || loader.attempted || !loader.matcher.test(query)) continue;
      loader.attempted = true;
      const previousLimit = this.loadingLimit;
      this.loadingLimit = index;
      try {
        loader.load(this);
        loader.loaded = true;
      } catch (error) {
        // Kyverno only logs a failed deferred load; the entry stays undefined. Not so past a bound.
        if (isBudgetError(error)) throw error;
        this.noteLoadFailure(loader.name, errorMessage(error));
      } finally {
        this.loadingLimit = previousLimit;
      }
    }
  }
}

interface ElementNames {
  readonly element: string;
  readonly elementIndex: string;
  /** The four names a foreach level sets. */
  readonly all: readonly string[];
}

function namesAt(nesting: number): ElementNames {
  const element = `element${nesting}`;
  const elementIndex = `elementIndex${nesting}`;
  return { element, elementIndex, all: ['element', element, 'elementIndex', elementIndex] };
}

/** The names for the usual nesting depths, built once. */
const ELEMENT_NAMES = Array.from({ length: 8 }, (_, nesting) => namesAt(nesting));

function elementNames(nesting: number): ElementNames {
  return ELEMENT_NAMES[nesting] ?? namesAt(nesting);
}

/** The `loaded` flags of a context without deferred loaders (most rules have none). */
const NONE_LOADED: readonly boolean[] = [];

function isNotFound(error: unknown): boolean {
  return error instanceof Error && error.name === 'JmesPathNotFoundError';
}

/** Matches a query naming `name` as a word not preceded by `.` (`x` in `x.y`, not in `y.x`). */
function nameMatcher(name: string): RegExp {
  return new RegExp(`(?:^|\\s|[^.0-9A-Za-z])${escapeRegExp(name)}\\b`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
