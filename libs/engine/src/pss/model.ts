/**
 * Typed view of the parts of a pod that the Pod Security Standards checks read. Built once per
 * evaluation from the raw JSON (see `pod-model.ts`), so the checks never re-walk untyped data.
 * `undefined` means "not set" (absent or null), exactly like a nil pointer in the Go API types.
 */
export interface SeLinuxOptionsModel {
  type: string;
  user: string;
  role: string;
}

export interface ProfileModel {
  type: string;
}

export interface CapabilitiesModel {
  add: string[];
  drop: string[];
}

export interface WindowsOptionsModel {
  hostProcess?: boolean;
}

export interface ContainerSecurityContextModel {
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  runAsNonRoot?: boolean;
  runAsUser?: number;
  capabilities?: CapabilitiesModel;
  procMount?: string;
  seLinuxOptions?: SeLinuxOptionsModel;
  seccompProfile?: ProfileModel;
  appArmorProfile?: ProfileModel;
  windowsOptions?: WindowsOptionsModel;
}

export interface PodSecurityContextModel {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  seLinuxOptions?: SeLinuxOptionsModel;
  seccompProfile?: ProfileModel;
  appArmorProfile?: ProfileModel;
  sysctls: { name: string }[];
  windowsOptions?: WindowsOptionsModel;
}

/** A host set on a probe or lifecycle handler; `path` is relative to the container, e.g. `livenessProbe.httpGet.host`. */
export interface HandlerHostModel {
  path: string;
  host: string;
}

export interface ContainerModel {
  name: string;
  image: string;
  securityContext?: ContainerSecurityContextModel;
  hostPorts: { index: number; hostPort: number }[];
  handlerHosts: HandlerHostModel[];
}

export interface VolumeModel {
  name: string;
  /** Keys of the volume object that hold a non-null value (the volume source kinds, plus `name`). */
  sources: ReadonlySet<string>;
  hostPathPath?: string;
}

export type ContainerListName = 'initContainers' | 'containers' | 'ephemeralContainers';

export interface PodModel {
  annotations: Record<string, string>;
  hostNetwork: boolean;
  hostPID: boolean;
  hostIPC: boolean;
  hostUsers?: boolean;
  osName?: string;
  volumes: VolumeModel[];
  securityContext?: PodSecurityContextModel;
  initContainers: ContainerModel[];
  containers: ContainerModel[];
  ephemeralContainers: ContainerModel[];
}

export function emptyPod(): PodModel {
  return {
    annotations: {},
    hostNetwork: false,
    hostPID: false,
    hostIPC: false,
    volumes: [],
    initContainers: [],
    containers: [],
    ephemeralContainers: [],
  };
}
