/** PUT of an object or of its status, ephemeralcontainers or approval subresource. */
import type { UpdateSubresource } from '../../resources/prepare';
import { fieldValidation } from '../request-fields';
import { itemOf, type ResourceHandler } from './resource-request';

export const update: ResourceHandler = async (api, request) => {
  const { type } = request.route;
  const { namespace, name } = itemOf(request);
  const { query, context } = request;
  const result = await api.resources.update(
    type,
    namespace,
    name,
    (await request.body()) ?? null,
    {
      dryRun: request.dryRun,
      subresource: request.route.subresource as UpdateSubresource | undefined,
      fieldManager: query.get('fieldManager') ?? undefined,
      ...fieldValidation(query, 'UpdateOptions', context, request.duplicates),
    },
    context,
  );
  request.send(result.code, result.object);
};
