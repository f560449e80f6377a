/**
 * Offline validation of rendered objects against Kubernetes' own OpenAPI schemas, as packaged by
 * kubernetes-models (one module per apiVersion and kind). Kinds it does not know (a
 * ServiceMonitor) are reported, so a caller decides which ones it accepts unchecked.
 */
interface ModelConstructor {
  new (data: object): { validate(): void };
}

/** The model module of an apiVersion and kind, e.g. `kubernetes-models/apps/v1/Deployment`. */
function modelFor(apiVersion: string, kind: string): ModelConstructor | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const module = require(`kubernetes-models/${apiVersion}/${kind}`) as Record<string, ModelConstructor>;
    return module[kind];
  } catch {
    return undefined;
  }
}

/** Why the object breaks its kind's schema (`unknown kind` when there is no schema for it), or undefined. */
export function kubernetesSchemaProblem(object: object): string | undefined {
  const { apiVersion, kind } = object as { apiVersion?: string; kind?: string };
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return 'no apiVersion or kind';
  const Model = modelFor(apiVersion, kind);
  if (!Model) return `unknown kind ${apiVersion}/${kind}`;
  try {
    new Model(object).validate();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
