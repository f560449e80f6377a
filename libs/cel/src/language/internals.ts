import type { ASTNode } from '@marcbachmann/cel-js';

/**
 * The parts of cel-js 8.0.0's type checker, evaluator and contexts that Edict's macros and tree
 * rewrites use. cel-js hands them to macro `typeCheck`/`evaluate` hooks and to AST nodes' `setMeta`
 * overrides (its documented macro extension point), but does not type them; `pinned.spec.ts` fails
 * if the pinned version changes.
 */
export interface CelType {
  readonly kind: string;
  readonly name: string;
  readonly keyType?: CelType;
  readonly valueType?: CelType;
  readonly hasDynType: boolean;
}

export interface CelRegistry {
  getListType(valueType: CelType): CelType;
  getMapType(keyType: CelType, valueType: CelType): CelType;
  getOptionalType(valueType: CelType): CelType;
}

export interface CelContext {
  forkWithVariable(name: string, type: CelType): CelOverlayContext;
}

export interface CelOverlayContext extends CelContext {
  setIterValue(value: unknown, evaluator: CelEvaluator): CelOverlayContext;
}

export interface CelChecker {
  readonly registry: CelRegistry;
  readonly boolType: CelType;
  readonly intType: CelType;
  readonly dynType: CelType;
  check(node: AstNode, ctx: CelContext): CelType;
  getType(name: string): CelType;
  createError(code: string, message: string, node: AstNode): Error;
}

export interface CelEvaluator {
  run(node: AstNode, ctx: CelContext): unknown;
  tryEval(node: AstNode, ctx: CelContext): unknown;
  createError(code: string, message: string, node?: AstNode): Error;
  debugType(value: unknown): CelType;
}

/** A parsed node with the hooks cel-js keeps per node (`meta`) and lets callers override. */
export type AstNode = ASTNode & {
  readonly meta: Record<string, unknown>;
  setMeta(key: string, value: unknown): AstNode;
  clone(op: unknown, args: unknown): AstNode;
};

/** What a macro expander receives at parse time. */
export interface MacroCall {
  readonly args: AstNode[];
  readonly receiver: AstNode | null;
  readonly ast: AstNode;
}

/** A macro as cel-js runs it: checked and evaluated by its own hooks. */
export interface Macro {
  typeCheck(checker: CelChecker, macro: this, ctx: CelContext): CelType;
  evaluate(evaluator: CelEvaluator, macro: this, ctx: CelContext): unknown;
  readonly async?: boolean;
}
