/**
 * A replica's identity in the Lease: the pod name and uid from the downward API (`POD_NAME`,
 * `POD_UID`), else the hostname with a random suffix so two processes on one host never collide.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

export function defaultIdentity(
  env: Readonly<Record<string, string | undefined>> = process.env,
  host: () => string = hostname,
  random: () => string = randomUUID,
): string {
  const podName = env.POD_NAME?.trim();
  const podUid = env.POD_UID?.trim();
  if (podName && podUid) return `${podName}_${podUid}`;
  return `${podName || host()}_${random()}`;
}
