/** PATCH with a JSON, merge or strategic merge patch (apply patches go to apply.ts). */
import { badRequest, unsupportedMediaType } from '../../status';
import type { UpdateSubresource } from '../../resources/prepare';
import { PATCH_CONTENT_TYPES, type PatchType } from '../../resources/write-options';
import { fieldValidation } from '../request-fields';
import { itemOf, type ResourceHandler, type ResourceRequest } from './resource-request';

export const patch: ResourceHandler = async (api, request) => {
  const patchType = patchTypeOf(request);
  const { type } = request.route;
  const { namespace, name } = itemOf(request);
  const { query, context } = request;
  const body = await patchBody(request);
  const result = await api.resources.patch(
    type,
    namespace,
    name,
    patchType,
    body,
    {
      dryRun: request.dryRun,
      subresource: request.route.subresource as UpdateSubresource | undefined,
      fieldManager: query.get('fieldManager') ?? undefined,
      force: query.get('force') === 'true',
      ...fieldValidation(query, 'PatchOptions', context, request.duplicates),
    },
    context,
  );
  request.send(result.code, result.object);
};

/** The patch type the Content-Type names; 415 for any other. */
export function patchTypeOf(request: ResourceRequest): PatchType {
  const patchType = PATCH_CONTENT_TYPES[request.contentType];
  if (!patchType) throw unsupportedMediaType(Object.keys(PATCH_CONTENT_TYPES).join(', '));
  return patchType;
}

export async function patchBody(request: ResourceRequest) {
  const body = await request.body();
  if (body === undefined) throw badRequest('the body of the request is empty');
  return body;
}

export function isApplyPatch(request: ResourceRequest): boolean {
  return PATCH_CONTENT_TYPES[request.contentType] === 'apply';
}
