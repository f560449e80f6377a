/** The server's admission attributes as @edict/native-policies reads them (kube's admission.Attributes). */
import type { AdmissionAttributes as NativeAttributes } from '@edict/native-policies';
import type { AdmissionAttributes } from '../types';

export function nativeAttributes(attributes: AdmissionAttributes): NativeAttributes {
  const { type, userInfo } = attributes;
  return {
    operation: attributes.operation,
    kind: attributes.kind ? { ...attributes.kind } : { group: type.group, version: type.version, kind: type.kind },
    resource: { group: type.group, version: type.version, resource: type.plural },
    subresource: attributes.subresource,
    name: attributes.name,
    namespace: attributes.namespace,
    object: attributes.object ?? null,
    oldObject: attributes.oldObject ?? null,
    userInfo: {
      username: userInfo.username,
      ...(userInfo.uid ? { uid: userInfo.uid } : {}),
      groups: [...(userInfo.groups ?? [])],
      ...(userInfo.extra
        ? { extra: Object.fromEntries(Object.entries(userInfo.extra).map(([key, values]) => [key, [...values]])) }
        : {}),
    },
    dryRun: attributes.dryRun,
    options: attributes.options,
  };
}
