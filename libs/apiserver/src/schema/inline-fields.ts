/**
 * Go structs embedded with `json:",inline"` in Kubernetes' API types: protobuf names them as a
 * field, JSON spreads their fields into the parent (`volumes[].configMap`, not
 * `volumes[].volumeSource.configMap`). By embedded type → the protobuf field name it travels under.
 */
const INLINE: ReadonlyMap<string, string> = new Map([
  ['EphemeralContainerCommon', 'ephemeralContainerCommon'],
  ['VolumeSource', 'volumeSource'],
  ['PersistentVolumeSource', 'persistentVolumeSource'],
  ['IngressRuleValue', 'ingressRuleValue'],
  ['LocalObjectReference', 'localObjectReference'],
  ['ProbeHandler', 'handler'],
  ['Rule', 'rule'],
  ['RuleWithOperations', 'ruleWithOperations'],
]);

/** Whether the protobuf field `name` of message type `type` is an inline struct in JSON. */
export function isInlineField(name: string, type: string): boolean {
  return INLINE.get(type.slice(type.lastIndexOf('.') + 1)) === name;
}
