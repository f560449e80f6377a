/**
 * Kyverno expands wildcards in the label and annotation keys of a pattern's `metadata` before
 * checking a map: `app.kubernetes.io/*: "?*"` becomes the first resource label key it matches
 * (anchors on the key are kept). When both the pattern and the resource have the tag, Kyverno
 * rebuilds the pattern's map from its string values only, so non-string values drop out.
 *
 * Kyverno edits the pattern in place and picks an arbitrary match when several keys match; here
 * the pattern is left untouched (a shallow copy is returned) and the first matching key wins.
 */
import type { JsonObject, JsonValue } from '../json';
import { isObject } from '../json';
import { hasWildcard, wildcardMatch } from '../values/wildcard';
import { formatAnchor, parseAnchor } from './anchor';

/** The entry for `tag`, written plainly or behind an anchor (`=(labels)`). */
function findTagged(tag: string, map: JsonObject): [string, JsonValue] | undefined {
  for (const key of Object.keys(map)) {
    if (key === tag || parseAnchor(key)?.key === tag) return [key, map[key]!];
  }
  return undefined;
}

function stringEntries(tag: string, data: JsonValue | undefined): [string, [string, string][]] | undefined {
  if (!isObject(data)) return undefined;
  const found = findTagged(tag, data);
  if (!found || !isObject(found[1])) return undefined;
  const entries: [string, string][] = [];
  for (const [key, value] of Object.entries(found[1])) {
    if (typeof value === 'string') entries.push([key, value]);
  }
  return [found[0], entries];
}

function expandKey(key: string, resourceKeys: readonly string[]): string {
  return resourceKeys.find((candidate) => wildcardMatch(key, candidate)) ?? key;
}

/** The expanded tag map, or `undefined` when Kyverno would leave the pattern's tag as it is. */
function expandTag(
  tag: string,
  patternMetadata: JsonObject,
  resourceMetadata: JsonValue,
): [string, JsonObject] | undefined {
  const patternData = stringEntries(tag, patternMetadata);
  if (!patternData) return undefined;
  const resourceData = stringEntries(tag, resourceMetadata);
  if (!resourceData) return undefined;
  const [patternKey, entries] = patternData;
  const original = patternMetadata[patternKey] as JsonObject;
  const unchanged = entries.length === Object.keys(original).length && !entries.some(([key]) => hasWildcard(key));
  if (unchanged) return undefined;
  const resourceKeys = resourceData[1].map(([key]) => key);
  const expanded: JsonObject = {};
  for (const [key, value] of entries) {
    let newKey = key;
    if (hasWildcard(key)) {
      const anchor = parseAnchor(key);
      newKey = anchor
        ? formatAnchor(anchor.modifier, expandKey(anchor.key, resourceKeys))
        : expandKey(key, resourceKeys);
    }
    // defineProperty: a label key may be "__proto__", which plain assignment would not store.
    Object.defineProperty(expanded, newKey, { value, enumerable: true, writable: true, configurable: true });
  }
  return [patternKey, expanded];
}

/** The pattern map with metadata wildcards expanded against the resource (the same object if nothing changes). */
export function expandMetadataWildcards(pattern: JsonObject, resource: JsonObject): JsonObject {
  const found = findTagged('metadata', pattern);
  if (!found || !isObject(found[1])) return pattern;
  const resourceMetadata = Object.hasOwn(resource, 'metadata') ? resource['metadata'] : undefined;
  if (resourceMetadata === null || resourceMetadata === undefined) return pattern;
  const [metadataKey, patternMetadata] = found;
  const labels = expandTag('labels', patternMetadata, resourceMetadata);
  const annotations = expandTag('annotations', patternMetadata, resourceMetadata);
  if (!labels && !annotations) return pattern;
  const metadata: JsonObject = { ...patternMetadata };
  if (labels) metadata[labels[0]] = labels[1];
  if (annotations) metadata[annotations[0]] = annotations[1];
  return { ...pattern, [metadataKey]: metadata };
}
