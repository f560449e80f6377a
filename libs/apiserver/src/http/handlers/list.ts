/** GET of a collection: a list, PartialObjectMetadataList or Table, with selectors and paging. */
import { toTable } from '../../tables/table';
import { partialList } from '../partial-metadata';
import { listBody, listMetadata, representationFor } from './representation';
import type { ResourceHandler } from './resource-request';

export const list: ResourceHandler = (api, request) => {
  const { type, namespace } = request.route;
  const representation = representationFor(type, request.request, request.query, request.context);
  const result = api.resources.list(type, namespace, request.listOptions());
  if (representation?.as === 'Table') {
    const table = toTable(type, result.items, listMetadata(result), representation.table, {
      headers: true,
      now: Date.now(),
    });
    request.send(200, table);
  } else if (representation) request.send(200, partialList(result.items, listMetadata(result), representation));
  else request.send(200, listBody(type, result));
};
