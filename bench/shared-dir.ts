import { resolve } from 'node:path';

/** The shared folder beside the repository (benchmark inputs, conformance corpus), or $EDICT_SHARED_DIR. */
export function sharedDir(): string {
  return process.env.EDICT_SHARED_DIR ?? resolve(process.cwd(), '..', 'shared');
}
