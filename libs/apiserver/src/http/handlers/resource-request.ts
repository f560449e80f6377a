/** What every verb handler gets: the resolved route, the request's parts, and the server's parts it may use. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonValue } from '@edict/foundation';
import type { AdmissionRequestContext } from '../../admission/types';
import type { ResourceRegistry } from '../../registry/registry';
import type { ListOptions } from '../../resources/list';
import type { AuthorizationMode } from '../../resources/reviews';
import type { ResourceService } from '../../resources/service';
import type { SubresourceService } from '../../resources/subresources';
import type { ObjectStore } from '../../store/object-store';
import type { ResourceRoute } from '../route';
import type { OpenWatch } from '../watch';

/** The server's parts the handlers use. */
export interface ApiParts {
  readonly store: ObjectStore;
  readonly registry: ResourceRegistry;
  readonly resources: ResourceService;
  readonly subresources: SubresourceService;
  readonly authorizationMode: AuthorizationMode;
  readonly bookmarkIntervalMs: number;
  /** Open watches, which end with the server. */
  readonly watches: Set<OpenWatch>;
}

export interface ResourceRequest {
  readonly route: ResourceRoute;
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly query: URLSearchParams;
  readonly context: AdmissionRequestContext;
  /** `dryRun=All` in the query. */
  readonly dryRun: boolean;
  readonly contentType: string;
  /** Keys the body repeats, noted when it is read (see request-fields.ts). */
  readonly duplicates: string[];
  /** Reads and parses the body (undefined when empty). */
  body(): Promise<JsonValue | undefined>;
  /** Selectors and paging from the query. */
  listOptions(): ListOptions;
  /** Sends a JSON answer with the warnings gathered so far. */
  send(code: number, body: JsonValue): void;
}

export type ResourceHandler = (api: ApiParts, request: ResourceRequest) => Promise<void> | void;

/** The item routes: a name, and a namespace when the type is namespaced. */
export function itemOf(request: ResourceRequest): { namespace: string | undefined; name: string } {
  return { namespace: request.route.namespace, name: request.route.name! };
}
