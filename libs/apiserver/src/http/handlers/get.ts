/** GET of one object: JSON, PartialObjectMetadata or a one-row Table. */
import type { JsonObject } from '@edict/foundation';
import { toTable } from '../../tables/table';
import { partialObject } from '../partial-metadata';
import { representationFor } from './representation';
import { itemOf, type ResourceHandler } from './resource-request';

export const get: ResourceHandler = (api, request) => {
  const { type } = request.route;
  const { namespace, name } = itemOf(request);
  const representation = representationFor(type, request.request, request.query, request.context);
  const object = api.resources.get(type, namespace, name);
  if (!representation) return request.send(200, object);
  if (representation.as !== 'Table') return request.send(200, partialObject(object, representation));
  const metadata = { resourceVersion: String((object.metadata as JsonObject).resourceVersion ?? '') };
  request.send(200, toTable(type, [object], metadata, representation.table, { headers: true, now: Date.now() }));
};
