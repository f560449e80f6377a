import { forbidden, type FieldError } from '../field-error';
import { joinQuote, pluralize, sortedSet } from '../go-text';
import type { PodModel } from '../model';
import type { CheckDefinition, CheckFailure } from './types';

/** Volume sources the restricted profile allows. */
const ALLOWED_SOURCES = [
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'image',
  'persistentVolumeClaim',
  'projected',
  'secret',
];

/** Restricted sources in the order upstream names them; anything else is "unknown". */
const RESTRICTED_SOURCES = [
  'hostPath',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'nfs',
  'iscsi',
  'glusterfs',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'fc',
  'azureFile',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'portworxVolume',
  'scaleIO',
  'storageos',
];

function restrictedVolumesV1Dot0(pod: PodModel): CheckFailure | undefined {
  const names: string[] = [];
  const types: string[] = [];
  const errors: FieldError[] = [];
  pod.volumes.forEach((volume, index) => {
    if (ALLOWED_SOURCES.some((source) => volume.sources.has(source))) return;
    const type = RESTRICTED_SOURCES.find((source) => volume.sources.has(source)) ?? 'unknown';
    names.push(volume.name);
    types.push(type);
    errors.push(forbidden(`spec.volumes[${index}].${type}`));
  });
  if (names.length === 0) return undefined;
  const distinctTypes = sortedSet(types);
  return {
    reason: 'restricted volume types',
    detail: `${pluralize('volume', 'volumes', names.length)} ${joinQuote(names)} ${pluralize('uses', 'use', names.length)} ${pluralize('restricted volume type', 'restricted volume types', distinctTypes.length)} ${joinQuote(distinctTypes)}`,
    errors,
  };
}

export const restrictedVolumesCheck: CheckDefinition = {
  id: 'restrictedVolumes',
  level: 'restricted',
  versions: [{ minor: 0, run: restrictedVolumesV1Dot0 }],
};
