import { KyvernoCalls } from './calls';
import { CelGeneratorContext } from './generator';
import { CelGlobalContext } from './global-context';
import { CelHttpContext } from './http';
import { CelImageDataContext } from './image-data';
import type { KyvernoCelPorts, KyvernoCelScope } from './ports';
import { CelResourceContext } from './resource';

/**
 * The values of the variables Kyverno's libraries declare (`http`, `resource`, `globalContext`,
 * `image`, and `generator` for GeneratingPolicies), for one evaluation: spread it into the activation of every expression of one policy on
 * one request. Its port calls share one count (KYVERNO_CEL_LIMITS.maxCalls) and the scope's
 * deadline; a namespaced policy's scope confines `resource` to its namespace and refuses
 * `globalContext` (and `http`, unless allowed). A port not given fails the expression that uses it.
 */
export function kyvernoActivation(ports: KyvernoCelPorts, scope: KyvernoCelScope = {}): Record<string, unknown> {
  const calls = new KyvernoCalls(scope);
  return {
    http: new CelHttpContext(calls, ports.http),
    resource: new CelResourceContext(calls, ports.resources),
    globalContext: new CelGlobalContext(calls, ports.globalContext),
    image: new CelImageDataContext(calls, ports.imageData),
    generator: new CelGeneratorContext(calls, ports.generator),
  };
}
