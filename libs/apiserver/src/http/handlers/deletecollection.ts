/** DELETE of a collection: every object the selectors match, each admitted as its own delete. */
import { deleteOptions } from './delete-options';
import { listBody } from './representation';
import type { ResourceHandler } from './resource-request';

export const deleteCollection: ResourceHandler = async (api, request) => {
  const { type, namespace } = request.route;
  const options = deleteOptions(await request.body(), request.dryRun, request.query);
  const result = await api.resources.deleteCollection(type, namespace, request.listOptions(), options, request.context);
  request.send(200, listBody(type, result));
};
