/** DELETE of one object, with preconditions and a propagation policy. */
import { deleteOptions } from './delete-options';
import { itemOf, type ResourceHandler } from './resource-request';

export const deleteObject: ResourceHandler = async (api, request) => {
  const { type } = request.route;
  const { namespace, name } = itemOf(request);
  const options = deleteOptions(await request.body(), request.dryRun, request.query);
  const result = await api.resources.delete(type, namespace, name, options, request.context);
  request.send(result.code, result.object);
};
