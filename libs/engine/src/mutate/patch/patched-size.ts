import type { EvaluationBudget, JsonValue } from '@edict/foundation';

/**
 * Keeps a document under JSON patch within the document size limit, at the cost of what each
 * operation adds rather than of the whole document per operation. An upper bound of the document's
 * size grows by each value before it is copied in (so a `copy` chain never allocates past the
 * limit); only when the bound would pass the limit is the document measured again, exactly, and the
 * operation refused if the document with the value really would be too large. Removals leave the
 * bound as it is: it is re-measured when next needed.
 */
export class PatchedSize {
  private bound: number;
  private readonly limit: number;

  constructor(
    private readonly budget: EvaluationBudget,
    initial: JsonValue,
  ) {
    this.limit = budget.limits.maxDocumentSize;
    this.bound = this.limit > 0 ? budget.checkDocument(initial, 'the resource to patch') : 0;
  }

  /** The size of a value about to enter the document; `shared` as in EvaluationBudget.documentSize. */
  measure(value: JsonValue, shared: boolean): number {
    return this.limit > 0 ? this.budget.documentSize(value, shared) : 0;
  }

  /**
   * Before a change that grows `document` by `bytes` (negative when it shrinks it): throws the
   * budget's limit error, naming `what` the change is, if the document would pass the limit.
   */
  admit(bytes: number, document: JsonValue, what: string): void {
    if (this.limit <= 0 || bytes <= 0) return;
    if (bytes <= this.limit && this.bound + bytes <= this.limit) {
      this.bound += bytes;
      return;
    }
    const exact = bytes > this.limit ? 0 : this.budget.documentSize(document, false);
    if (bytes > this.limit || exact + bytes > this.limit) throw this.budget.documentTooLarge(what);
    this.bound = exact + bytes;
  }

  /** Before the whole document is replaced by a value of `size` bytes. */
  replaceAll(size: number, what: string): void {
    if (this.limit <= 0) return;
    if (size > this.limit) throw this.budget.documentTooLarge(what);
    this.bound = size;
  }
}

/** JSON text size of an object member's key and punctuation (`"key":` and a comma). */
export function memberOverhead(key: string): number {
  return key.length + 4;
}
