/**
 * Server-side apply: a PATCH with `application/apply-patch+yaml` (or +cbor). The same write as a
 * patch, with field ownership kept per manager (`apply/managed-fields.ts`).
 */
import { patch } from './patch';
import type { ResourceHandler } from './resource-request';

export const apply: ResourceHandler = (api, request) => patch(api, request);
