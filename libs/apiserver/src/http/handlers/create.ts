/** POST to a collection: a create through admission. */
import { pathNotFound } from '../../status';
import { fieldValidation } from '../request-fields';
import type { ResourceHandler } from './resource-request';

export const create: ResourceHandler = async (api, request) => {
  const { type, namespace } = request.route;
  if (type.namespaced && namespace === undefined) throw pathNotFound();
  const { query, context } = request;
  const result = await api.resources.create(
    type,
    namespace,
    (await request.body()) ?? null,
    {
      dryRun: request.dryRun,
      fieldManager: query.get('fieldManager') ?? undefined,
      ...fieldValidation(query, 'CreateOptions', context, request.duplicates),
    },
    context,
  );
  request.send(result.code, result.object);
};
