import { Environment, Optional } from '@marcbachmann/cel-js';
import { replaceHandle } from './handles';
import type { AstNode, CelChecker, CelContext, CelEvaluator, CelType, Macro, MacroCall } from './internals';
import { isUint, withoutParams } from './literals';
import { celError, synchronous } from './values';

/**
 * The parts of cel-go's optional types cel-js 8.0.0 lacks: `optional.ofNonZeroValue(v)`,
 * `opt.optMap(x, expr)`, `opt.optFlatMap(x, expr)`, `optional_type` (`==`/`!=` between optionals:
 * operators.ts).
 */
export function registerOptionals(env: Environment): void {
  env.registerFunction(
    'OptionalNamespace.ofNonZeroValue(A): optional<A>',
    (_namespace: unknown, value: unknown) => (isZeroValue(value) ? Optional.none() : Optional.of(value)),
    { async: false },
  );
  env.registerFunction('optional.optMap(ast, ast): optional<dyn>', (call: MacroCall) => optionalMacro(call, false));
  env.registerFunction('optional.optFlatMap(ast, ast): optional<dyn>', (call: MacroCall) => optionalMacro(call, true));
  // CEL's optional_type: the type of every optional (cel-js has no type value for it).
  const TypeValue = (new Environment().evaluate('int') as object).constructor as new (name: string) => object;
  const optionalType = new TypeValue('optional_type');
  env.registerConstant('optional_type', 'type', optionalType);
  env.registerFunction('type(optional): type', () => optionalType, { async: false });
}

/** The zero value of its type: null, false, 0, 0u, 0.0, '', b'', [], {}, a zero duration or the epoch. */
function isZeroValue(value: unknown): boolean {
  if (value === null || value === false || value === 0n || value === 0 || value === '') return true;
  if (isUint(value)) return value.valueOf() === 0n;
  if (value instanceof Uint8Array || Array.isArray(value)) return value.length === 0;
  if (value instanceof Map || value instanceof Set) return value.size === 0;
  if (value instanceof Date) return value.getTime() === 0;
  if (value && typeof value === 'object') {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto === null || proto === Object.prototype) return Object.keys(value).length === 0;
    const duration = value as { seconds?: unknown; nanos?: unknown };
    if (typeof duration.seconds === 'bigint' && typeof duration.nanos === 'number')
      return duration.seconds === 0n && duration.nanos === 0;
  }
  return false;
}

interface OptionalMacro extends Macro {
  readonly receiver: AstNode;
  readonly name: string;
  readonly body: AstNode;
  readonly flat: boolean;
  valueType?: CelType;
}

function optionalMacro(call: MacroCall, flat: boolean): OptionalMacro {
  const [variable, body] = call.args;
  const what = flat ? 'optFlatMap' : 'optMap';
  if (variable?.op !== 'id' || !body) throw celError(`${what}() needs a variable name and an expression`, call.ast);
  if (!call.receiver) throw celError(`${what}() needs an optional receiver`, call.ast);
  return {
    receiver: call.receiver,
    name: variable.args as string,
    body,
    flat,
    async: false,
    typeCheck: checkOptionalMacro,
    evaluate: evaluateOptionalMacro,
  };
}

function checkOptionalMacro(checker: CelChecker, macro: OptionalMacro, ctx: CelContext): CelType {
  const receiver = checker.check(macro.receiver, ctx);
  if (receiver.kind !== 'optional' && receiver.kind !== 'dyn')
    throw checker.createError('optional_expected', `receiver must be optional, got '${receiver.name}'`, macro.receiver);
  const valueType = withoutParams(checker, (receiver.kind === 'optional' && receiver.valueType) || checker.dynType);
  macro.valueType = valueType;
  const bodyType = checker.check(macro.body, ctx.forkWithVariable(macro.name, valueType));
  if (!macro.flat) return checker.registry.getOptionalType(bodyType);
  if (bodyType.kind !== 'optional' && bodyType.kind !== 'dyn')
    throw checker.createError(
      'optional_expected',
      `optFlatMap() must produce an optional, got '${bodyType.name}'`,
      macro.body,
    );
  return bodyType.kind === 'optional' ? bodyType : checker.getType('optional');
}

function evaluateOptionalMacro(evaluator: CelEvaluator, macro: OptionalMacro, ctx: CelContext): unknown {
  const what = macro.flat ? 'optFlatMap' : 'optMap';
  const receiver = synchronous(evaluator.run(macro.receiver, ctx), what, macro.receiver);
  if (!(receiver instanceof Optional)) throw celError('receiver must be optional', macro.receiver);
  if (!receiver.hasValue()) return Optional.none();
  const scope = ctx.forkWithVariable(macro.name, macro.valueType ?? evaluator.debugType(receiver.value()));
  const result = synchronous(
    evaluator.run(macro.body, scope.setIterValue(receiver.value(), evaluator)),
    what,
    macro.body,
  );
  if (!macro.flat) return Optional.of(result);
  if (!(result instanceof Optional)) throw celError('optFlatMap() must produce an optional', macro.body);
  return result;
}

/**
 * `optional.none()` is typed `optional<T>` and `{}` `map<K, V>`; selecting from them (`.?x`, `[?k]`,
 * `.x`) then fails to check ("Cannot index type"). The operand of a selection or index is checked
 * with free type parameters read as dyn.
 */
export function fixSelectionOperand(node: AstNode): void {
  if (node.op !== '.' && node.op !== '.?' && node.op !== '[]' && node.op !== '[?]') return;
  const operand = (node.args as unknown as AstNode[])[0];
  if (!operand || operand.meta.alternate || operand.meta.macro) return;
  const check = operand.meta.check as (checker: CelChecker, ast: AstNode, ctx: CelContext) => CelType;
  operand.setMeta('check', (checker: CelChecker, ast: AstNode, ctx: CelContext) =>
    withoutParams(checker, check(checker, ast, ctx)),
  );
}

/**
 * Selecting a field through an optional (`opt.f`, `opt.?f`) whose value cannot have fields (null, a
 * number, a string, a list) is an error, as in cel-go; cel-js answers optional.none().
 */
export function fixOptionalSelection(node: AstNode): void {
  if (node.op !== '.' && node.op !== '.?') return;
  replaceHandle(
    node,
    (original, ast) => {
      // Only operands typed optional: wrapping every dyn selection would double the cost of field access.
      if (ast.left?.checkedType?.kind !== 'optional') return undefined;
      return (left, field, selection, evaluator) => {
        if (left instanceof Optional && left.hasValue()) {
          const inner = left.value();
          if (inner === null || typeof inner !== 'object' || Array.isArray(inner) || inner instanceof Uint8Array)
            throw celError(`no such key: ${String(field)}`, selection);
        }
        return original(left, field, selection, evaluator);
      };
    },
    'as given',
  );
}

interface OrMacro extends Macro {
  readonly functionDesc?: string;
  readonly receiver: AstNode;
  readonly arg: AstNode;
}

const OR = 'optional.or(optional)';
const OR_VALUE = 'optional.orValue(value)';

/**
 * `x.or(o)` and `x.orValue(v)` whose receiver is a plain value at run time (typed dyn: a variable
 * holding `object.spec.?x`, or a field read without `.?`) answer the receiver itself, as cel-go's
 * short-circuiting `or`/`orValue` do; cel-js fails ("receiver must be optional"). An optional
 * receiver and the static check are unchanged (a receiver typed neither optional nor dyn is refused).
 */
export function fixPlainOrReceiver(node: AstNode): void {
  const macro = node.meta.macro as OrMacro | undefined;
  if (macro?.functionDesc !== OR && macro?.functionDesc !== OR_VALUE) return;
  const orValue = macro.functionDesc === OR_VALUE;
  const alternative = (evaluator: CelEvaluator, ctx: CelContext): unknown => {
    const value = evaluator.run(macro.arg, ctx);
    if (orValue) return value;
    const optional = (settled: unknown) => {
      if (settled instanceof Optional) return settled;
      throw celError('optional.or(optional) argument must be optional', macro.arg);
    };
    return value instanceof Promise ? value.then(optional) : optional(value);
  };
  const decide = (receiver: unknown, evaluator: CelEvaluator, ctx: CelContext): unknown => {
    if (!(receiver instanceof Optional)) return receiver;
    if (receiver.hasValue()) return orValue ? receiver.value() : receiver;
    return alternative(evaluator, ctx);
  };
  node.setMeta('macro', {
    ...macro,
    evaluate(evaluator: CelEvaluator, _self: OrMacro, ctx: CelContext) {
      const receiver = evaluator.run(macro.receiver, ctx);
      return receiver instanceof Promise
        ? receiver.then((settled) => decide(settled, evaluator, ctx))
        : decide(receiver, evaluator, ctx);
    },
  } satisfies OrMacro);
}
