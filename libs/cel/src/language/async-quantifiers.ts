import type { AstNode, CelContext, CelEvaluator } from './internals';

interface QuantifierArgs {
  kind?: string;
  errorsAreFatal?: boolean;
  iterable: AstNode;
  init: AstNode;
  step: AstNode;
  condition: (accu: unknown) => unknown;
  result: (accu: unknown) => unknown;
  iterCtx: IterationContext;
}

interface IterationContext extends CelContext {
  async?: boolean;
  accuValue?: unknown;
  reuse(parent: CelContext): IterationContext;
  setIterValue(value: unknown, evaluator: CelEvaluator): IterationContext;
}

/**
 * `all` and `exists` whose predicate answers with a Promise (Kyverno's registry and HTTP calls).
 * cel-js 8.0.0 marks the comprehension's context asynchronous after the first such run and, on every
 * later run, starts its asynchronous loop without a pending step: the accumulator becomes undefined
 * and the macro answers undefined. The loop here is cel-js's (errors absorbed until the end, the
 * first one thrown when nothing decided), with the pending step handled on every run.
 */
export function fixAsyncQuantifier(node: AstNode): void {
  const alternate = node.meta.alternate as AstNode | undefined;
  if (alternate?.op !== ('comprehension' as string)) return;
  const args = alternate.args as unknown as QuantifierArgs;
  if (args.kind !== 'quantifier' || args.errorsAreFatal) return;
  alternate.setMeta('evaluate', (evaluator: CelEvaluator, _ast: AstNode, ctx: CelContext) => {
    const items = evaluator.run(args.iterable, ctx);
    return items instanceof Promise
      ? items.then((resolved) => quantify(evaluator, args, resolved, ctx))
      : quantify(evaluator, args, items, ctx);
  });
}

function quantify(evaluator: CelEvaluator, args: QuantifierArgs, collection: unknown, parent: CelContext): unknown {
  const items = iterable(evaluator, args, collection);
  const ctx = args.iterCtx.reuse(parent);
  const accu = evaluator.run(args.init, ctx);
  ctx.accuValue = accu;
  return loop(evaluator, args, ctx, items, accu, 0, undefined);
}

function loop(
  evaluator: CelEvaluator,
  args: QuantifierArgs,
  ctx: IterationContext,
  items: readonly unknown[],
  accu: unknown,
  start: number,
  firstError: unknown,
): unknown {
  let error = firstError;
  for (let i = start; i < items.length; i++) {
    if (!args.condition(accu)) return args.result(accu);
    const step = evaluator.tryEval(args.step, ctx.setIterValue(items[i], evaluator));
    if (step instanceof Promise) {
      // Another evaluation may start meanwhile: it must not share this context (cel-js's rule).
      if (ctx === args.iterCtx) ctx.async = true;
      return step.then((settled: unknown) => {
        let pendingError = error;
        let next = accu;
        if (settled instanceof Error) pendingError ??= settled;
        else next = settled;
        return loop(evaluator, args, ctx, items, next, i + 1, pendingError);
      });
    }
    if (step instanceof Error) error ??= step;
    else accu = step;
  }
  if (error && args.condition(accu)) throw error;
  return args.result(accu);
}

function iterable(evaluator: CelEvaluator, args: QuantifierArgs, collection: unknown): readonly unknown[] {
  if (Array.isArray(collection)) return collection;
  if (collection instanceof Set) return [...(collection as Set<unknown>)];
  if (collection instanceof Map) return [...(collection as Map<unknown, unknown>).keys()];
  if (collection && typeof collection === 'object') return Object.keys(collection);
  throw evaluator.createError(
    'invalid_comprehension_range',
    `Expression of type '${evaluator.debugType(collection).name}' cannot be range of a comprehension (must be list, map, or dynamic).`,
    args.iterable,
  );
}
