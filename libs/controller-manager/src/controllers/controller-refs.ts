/**
 * Controller references as kube's controllers use them: who controls an object, the reference a
 * controller puts on what it creates, and claiming (kube's ControllerRefManager): an owner keeps the
 * objects it controls that its selector still matches, releases those it no longer matches and
 * adopts matching orphans.
 */
import { isObject, matchesLabelSelector, type JsonObject, type JsonValue, type LabelSelector } from '@edict/foundation';
import { ApiError, metadataOf, ownerReferencesOf, withOwnerReferences } from '@edict/apiserver';
import type { ControllerClient } from './controller-client';

/** The owner reference with `controller: true`, if any. */
export function controllerOf(object: JsonObject): JsonObject | undefined {
  return ownerReferencesOf(object).find((ref) => ref.controller === true);
}

/** The reference a controller sets on the objects it creates or adopts. */
export function controllerRefTo(owner: JsonObject): JsonObject {
  const meta = metadataOf(owner);
  return {
    apiVersion: owner.apiVersion ?? '',
    kind: owner.kind ?? '',
    name: meta.name ?? '',
    uid: meta.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

export function labelsOf(object: JsonObject): Record<string, string> {
  const labels = metadataOf(object).labels;
  return isObject(labels) ? (labels as Record<string, string>) : {};
}

/** A missing selector selects nothing; an empty one everything (kube's LabelSelectorAsSelector). */
export function selects(selector: JsonValue | undefined, labels: Record<string, string>): boolean {
  return isObject(selector) && matchesLabelSelector(selector as LabelSelector, labels);
}

export function isDeleting(object: JsonObject): boolean {
  return metadataOf(object).deletionTimestamp !== undefined;
}

/**
 * The candidates `owner` controls once claimed: adoption adds its controller reference, release
 * removes it (both as updates pinned to the candidate's resourceVersion).
 */
export async function claim(
  client: ControllerClient,
  owner: JsonObject,
  candidates: readonly JsonObject[],
  matches: (candidate: JsonObject) => boolean,
): Promise<JsonObject[]> {
  const ownerUid = metadataOf(owner).uid;
  const claimed: JsonObject[] = [];
  for (const candidate of candidates) {
    const ref = controllerOf(candidate);
    if (ref) {
      if (ref.uid !== ownerUid) continue;
      if (matches(candidate)) {
        claimed.push(candidate);
      } else if (!isDeleting(owner)) {
        const others = ownerReferencesOf(candidate).filter((other) => other.uid !== ownerUid);
        await ignoringGone(client.update(withOwnerReferences(candidate, others)));
      }
      continue;
    }
    if (isDeleting(owner) || isDeleting(candidate) || !matches(candidate)) continue;
    const adopted = await ignoringGone(
      client.update(withOwnerReferences(candidate, [...ownerReferencesOf(candidate), controllerRefTo(owner)])),
    );
    if (adopted) claimed.push(adopted);
  }
  return claimed;
}

async function ignoringGone(write: Promise<JsonObject>): Promise<JsonObject | undefined> {
  try {
    return await write;
  } catch (error) {
    if (error instanceof ApiError && error.code === 404) return undefined;
    throw error;
  }
}
