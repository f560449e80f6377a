import { compileCel } from '../compile';
import { kyvernoActivation } from '../kyverno/activation';
import type { KyvernoCelPorts, KyvernoCelScope } from '../kyverno/ports';

/**
 * Compiles `source` in the Kyverno policy environment and evaluates it with the ports' activation
 * (plus `extra` variables); always a Promise, as policy engines await evaluations.
 */
export async function evaluateKyverno(
  source: string,
  ports: KyvernoCelPorts = {},
  scope: KyvernoCelScope = {},
  extra: Record<string, unknown> = {},
): Promise<unknown> {
  const program = compileCel(
    source,
    { params: false, authorizer: false, kyverno: true, namespacedPolicy: scope.policyNamespace !== undefined },
    'any',
  );
  const activation = {
    object: null,
    oldObject: null,
    request: null,
    namespaceObject: null,
    variables: {},
    ...kyvernoActivation(ports, scope),
    ...extra,
  };
  return await program.evaluate(activation);
}
