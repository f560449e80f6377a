/**
 * Kyverno expands wildcards in the label and annotation keys of a pattern's `metadata` before
 * checking a map: `app.kubernetes.io/*: "?*"` becomes the first resource label key it matches
 * (anchors on the key are kept). When both the pattern and the resource have the tag, Kyverno
 * rebuilds the pattern's map from its string values only, so non-string values drop out.
 *
 * Kyverno edits the pattern in place and picks an arbitrary match when several keys match; here
 * the pattern is left untouched (a shallow copy is returned) and the first matching key wins.
 */
import { type JsonObject, type JsonValue, isObject, setOwn, hasWildcard, wildcardMatch } from '@edict/foundation';
import { formatAnchor, parseAnchor, type Anchor } from './anchor';
import { planFor, type MapPlan } from './plan';

type Tag = 'labels' | 'annotations';

/** The resource's tag map, found like Kyverno does (plain key, or a key behind an anchor). */
function resourceTag(metadata: JsonValue | undefined, tag: Tag): JsonObject | undefined {
  if (!isObject(metadata)) return undefined;
  let value: JsonValue | undefined = Object.hasOwn(metadata, tag) ? metadata[tag] : undefined;
  if (value === undefined) {
    const key = Object.keys(metadata).find((k) => parseAnchor(k)?.key === tag);
    value = key === undefined ? undefined : metadata[key];
  }
  return isObject(value) ? value : undefined;
}

function expandKey(key: string, resourceKeys: readonly string[]): string {
  return resourceKeys.find((candidate) => wildcardMatch(key, candidate)) ?? key;
}

/** Expanded patterns kept per pattern map; past this many, the kept ones are dropped. */
const MAX_EXPANSIONS = 32;

interface ExpandedTag {
  readonly map: JsonObject;
  /** The key each string entry of the pattern's map became, in its order: this decides `map`. */
  readonly keys: readonly string[];
}

/**
 * A tag map's entries as the rebuild sees them, worked out once per pattern map: its string entries
 * (the others drop out), and for a wildcard key the part matched against the resource's keys.
 */
interface TagEntries {
  readonly entries: readonly { key: string; value: string; anchor: Anchor | undefined; wildcard: string | undefined }[];
  /** Some entry is not a string: the rebuild drops it, so the pattern changes whatever the resource. */
  readonly dropsEntries: boolean;
}

const TAG_ENTRIES = Symbol('tag entries');
type WithTagEntries = JsonObject & { [TAG_ENTRIES]?: TagEntries };

function tagEntries(patternTag: JsonObject): TagEntries {
  const cached = (patternTag as WithTagEntries)[TAG_ENTRIES];
  if (cached) return cached;
  const entries: TagEntries['entries'][number][] = [];
  let dropsEntries = false;
  for (const [key, value] of Object.entries(patternTag)) {
    if (typeof value !== 'string') {
      dropsEntries = true;
      continue;
    }
    const anchor = hasWildcard(key) ? parseAnchor(key) : undefined;
    entries.push({ key, value, anchor, wildcard: hasWildcard(key) ? (anchor ? anchor.key : key) : undefined });
  }
  const computed: TagEntries = { entries, dropsEntries };
  // Cached like plans (see plan.ts): invisible to JSON and key listings; frozen maps recompute.
  if (Object.isExtensible(patternTag)) {
    Object.defineProperty(patternTag, TAG_ENTRIES, { value: computed, enumerable: false, configurable: true });
  }
  return computed;
}

/**
 * The expanded tag map, or `undefined` when Kyverno's rebuild would not change the pattern: no
 * entry to drop and no wildcard key that matches a resource key (each key then stays as written).
 */
function expandTag(patternTag: JsonValue, resourceMetadata: JsonValue | undefined, tag: Tag): ExpandedTag | undefined {
  if (!isObject(patternTag) || !planFor(patternTag).expandable) return undefined;
  const resourceData = resourceTag(resourceMetadata, tag);
  if (!resourceData) return undefined;
  const { entries, dropsEntries } = tagEntries(patternTag);
  let resourceKeys: string[] | undefined;
  let changed = dropsEntries;
  const keys: string[] = [];
  for (const entry of entries) {
    let newKey = entry.key;
    if (entry.wildcard !== undefined) {
      resourceKeys ??= Object.keys(resourceData).filter((key) => typeof resourceData[key] === 'string');
      const expanded = expandKey(entry.wildcard, resourceKeys);
      // An anchor is written back in its canonical form, as the rebuild does.
      newKey = entry.anchor ? formatAnchor(entry.anchor.modifier, expanded) : expanded;
    }
    if (newKey !== entry.key) changed = true;
    keys.push(newKey);
  }
  if (!changed) return undefined;
  const map: JsonObject = {};
  entries.forEach((entry, index) => setOwn(map, keys[index]!, entry.value));
  return { map, keys };
}

/** The pattern map with metadata wildcards expanded against the resource (the same object if nothing changes). */
export function expandMetadataWildcards(pattern: JsonObject, plan: MapPlan, resource: JsonObject): JsonObject {
  if (plan.metadataKey === undefined) return pattern;
  const patternMetadata = pattern[plan.metadataKey];
  if (!isObject(patternMetadata)) return pattern;
  const resourceMetadata = Object.hasOwn(resource, 'metadata') ? resource['metadata'] : undefined;
  if (resourceMetadata === null || resourceMetadata === undefined) return pattern;
  const metadataPlan = planFor(patternMetadata);
  const { labelsKey, annotationsKey } = metadataPlan;
  const labels =
    labelsKey === undefined ? undefined : expandTag(patternMetadata[labelsKey]!, resourceMetadata, 'labels');
  const annotations =
    annotationsKey === undefined
      ? undefined
      : expandTag(patternMetadata[annotationsKey]!, resourceMetadata, 'annotations');
  if (!labels && !annotations) return pattern;
  // Same keys chosen, same expanded pattern: reuse it (and the plan cached on it).
  const signature = JSON.stringify([labels?.keys ?? null, annotations?.keys ?? null]);
  const expansions = (plan.expansions ??= new Map());
  const known = expansions.get(signature);
  if (known) return known;
  const metadata: JsonObject = { ...patternMetadata };
  if (labels) metadata[labelsKey!] = labels.map;
  if (annotations) metadata[annotationsKey!] = annotations.map;
  const expanded = { ...pattern, [plan.metadataKey]: metadata };
  if (expansions.size >= MAX_EXPANSIONS) expansions.clear();
  expansions.set(signature, expanded);
  return expanded;
}
