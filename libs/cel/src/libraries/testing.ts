import { compileCel } from '../compile';
import { CelMeter } from '../meter';
import { CEL_LIMITS, type CelLimits } from '../limits';

/** Evaluates an expression in the one environment under a fresh meter (for the libraries' specs). */
export function evaluateCel(
  expression: string,
  activation: Record<string, unknown> = {},
  limits?: Partial<CelLimits>,
): unknown {
  const program = compileCel(expression, { params: false, authorizer: false }, 'any');
  return new CelMeter(undefined, { ...CEL_LIMITS, ...limits }).run(() => program.evaluate(activation));
}

/** The message an expression fails with, at compile or evaluation time ('' when it succeeds). */
export function celFailure(
  expression: string,
  activation: Record<string, unknown> = {},
  limits?: Partial<CelLimits>,
): string {
  try {
    evaluateCel(expression, activation, limits);
    return '';
  } catch (error) {
    return (error as Error).message;
  }
}
