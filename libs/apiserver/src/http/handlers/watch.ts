/** GET with `watch=true`, of a collection or (by a name field selector) of one object. */
import { compileFilter } from '../../resources/list';
import { checkWatchable } from '../partial-metadata';
import { warningHeader } from '../request-context';
import { startWatch } from '../watch';
import { representationFor } from './representation';
import type { ResourceHandler } from './resource-request';

export const watch: ResourceHandler = (api, request) => {
  const { type, namespace, name } = request.route;
  const { query, response, context } = request;
  const listOptions = request.listOptions();
  const fieldSelector =
    name === undefined
      ? listOptions.fieldSelector
      : [`metadata.name=${name}`, query.get('fieldSelector')].filter(Boolean).join(',');
  const filter = compileFilter(type, { ...listOptions, fieldSelector });
  const representation = representationFor(type, request.request, query, context);
  if (representation && representation.as !== 'Table') checkWatchable(representation);
  if (context.warnings.length > 0) response.setHeader('Warning', warningHeader(context.warnings));
  const timeout = query.get('timeoutSeconds');
  const open = startWatch(
    api.store,
    response,
    {
      type,
      namespace,
      filter,
      resourceVersion: query.get('resourceVersion') ?? undefined,
      allowBookmarks: query.get('allowWatchBookmarks') === 'true',
      timeoutSeconds: timeout === null ? undefined : Number(timeout),
      bookmarkIntervalMs: api.bookmarkIntervalMs,
      ...(representation?.as === 'Table' ? { table: representation.table } : {}),
      ...(representation && representation.as !== 'Table' ? { partialMetadata: representation } : {}),
    },
    (closed) => api.watches.delete(closed),
  );
  api.watches.add(open);
};
