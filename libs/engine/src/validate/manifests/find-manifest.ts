import { isObject, type JsonObject, type JsonValue, type KubeObject, goValueText } from '@edict/foundation';
import { flatten } from './flat-object';
import { groupVersion } from './ignore-fields';

/** How many candidates the value-based search returns at most (k8s-manifest-sigstore's default). */
const MAX_CANDIDATES = 3;

/**
 * The manifests in a signed artifact that may be the signed form of `object`: those of its kind, then
 * the one with the same group and name (preferring the same namespace); failing that, the documents
 * sharing the most field values with it. Empty when the artifact holds nothing of the object's kind.
 */
export function findManifestCandidates(
  documents: readonly JsonValue[],
  object: KubeObject,
  ignoreFields: readonly string[],
): JsonObject[] {
  const kind = typeof object.kind === 'string' ? object.kind : '';
  const sameKind = documents.filter(
    (doc): doc is JsonObject => isObject(doc) && typeof doc.kind === 'string' && doc.kind === kind,
  );
  if (sameKind.length === 0) return [];
  const byIdentity = searchByIdentity(sameKind, object);
  if (byIdentity) return [byIdentity];
  return searchByValue(sameKind, object, ignoreFields);
}

function searchByIdentity(manifests: JsonObject[], object: KubeObject): JsonObject | undefined {
  if (typeof object.apiVersion === 'string' && object.apiVersion.split('/').length > 2) return undefined;
  const wanted = identity(object);
  const sameName = manifests.filter((m) => {
    const id = identity(m);
    return id.group === wanted.group && id.name === wanted.name;
  });
  if (sameName.length <= 1) return sameName[0];
  return sameName.find((m) => identity(m).namespace === wanted.namespace) ?? sameName[0];
}

function identity(object: JsonObject): { group: string; name: string; namespace: string } {
  const metadata = isObject(object.metadata) ? object.metadata : {};
  return {
    group: groupVersion(object.apiVersion).group,
    name: typeof metadata.name === 'string' ? metadata.name : '',
    namespace: typeof metadata.namespace === 'string' ? metadata.namespace : '',
  };
}

/**
 * Counts, for each manifest, the object's fields it holds with the same value, longest values first
 * (an image reference says more than `replicas: 1`), and stops early once the same few candidates keep
 * matching. Returns the best-scoring manifests, at most three.
 */
function searchByValue(manifests: JsonObject[], object: KubeObject, ignoreFields: readonly string[]): JsonObject[] {
  const fields = [...flatten(object, ignoreFields)]
    .map(([key, value]) => [key, goValueText(value)] as const)
    .sort((a, b) => b[1].length - a[1].length);
  const candidates = manifests.map((manifest) => {
    const table = new Map<string, string>();
    for (const [key, value] of flatten(manifest, ignoreFields)) table.set(key, goValueText(value));
    return { manifest, table, count: 0 };
  });
  const tenth = Math.trunc(fields.length / 10);
  let lastMatched = -1;
  let sameMatchedLoops = 0;
  for (const [i, [key, value]] of fields.entries()) {
    let matched = 0;
    for (const candidate of candidates) {
      if (candidate.table.get(key) === value) {
        candidate.count++;
        matched++;
      }
    }
    if (i > tenth && matched > 0 && matched < MAX_CANDIDATES) {
      sameMatchedLoops = matched === lastMatched ? sameMatchedLoops + 1 : 0;
    }
    if (sameMatchedLoops > tenth) break;
    lastMatched = matched;
  }
  const best = Math.max(...candidates.map((c) => c.count));
  return candidates
    .filter((c) => c.count === best)
    .slice(0, MAX_CANDIDATES)
    .map((c) => c.manifest);
}
