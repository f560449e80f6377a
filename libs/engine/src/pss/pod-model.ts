import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import { PodSecurityError, RESOURCE_ERROR_PREFIX } from './errors';
import type {
  CapabilitiesModel,
  ContainerModel,
  ContainerSecurityContextModel,
  HandlerHostModel,
  PodModel,
  PodSecurityContextModel,
  ProfileModel,
  SeLinuxOptionsModel,
  VolumeModel,
  WindowsOptionsModel,
} from './model';

/**
 * Reads the typed pod model from raw pod `metadata` and `spec` JSON. Like Go's JSON decoding
 * into the core/v1 types, null counts as unset and a value of the wrong type is an error (named
 * by its field path) rather than silently ignored.
 */
export function readPodModel(
  metadata: JsonValue | undefined,
  spec: JsonValue | undefined,
  base: { metadataPath: string; specPath: string },
): PodModel {
  const meta = optionalObject(metadata, base.metadataPath);
  const podSpec = optionalObject(spec, base.specPath);
  return {
    annotations: readStringMap(meta?.annotations, `${base.metadataPath}.annotations`),
    hostNetwork: optionalBool(podSpec?.hostNetwork, `${base.specPath}.hostNetwork`) ?? false,
    hostPID: optionalBool(podSpec?.hostPID, `${base.specPath}.hostPID`) ?? false,
    hostIPC: optionalBool(podSpec?.hostIPC, `${base.specPath}.hostIPC`) ?? false,
    hostUsers: optionalBool(podSpec?.hostUsers, `${base.specPath}.hostUsers`),
    osName: optionalString(optionalObject(podSpec?.os, `${base.specPath}.os`)?.name, `${base.specPath}.os.name`),
    volumes: readList(podSpec?.volumes, `${base.specPath}.volumes`, readVolume),
    securityContext: readPodSecurityContext(podSpec?.securityContext, `${base.specPath}.securityContext`),
    initContainers: readList(podSpec?.initContainers, `${base.specPath}.initContainers`, readContainer),
    containers: readList(podSpec?.containers, `${base.specPath}.containers`, readContainer),
    ephemeralContainers: readList(podSpec?.ephemeralContainers, `${base.specPath}.ephemeralContainers`, readContainer),
  };
}

function fail(path: string, expected: string, value: JsonValue): never {
  const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  throw new PodSecurityError(RESOURCE_ERROR_PREFIX, `${path}: expected ${expected}, got ${actual}`, path);
}

function optionalObject(value: JsonValue | undefined, path: string): JsonObject | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) fail(path, 'object', value);
  return value;
}

function optionalBool(value: JsonValue | undefined, path: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') fail(path, 'boolean', value);
  return value;
}

function optionalString(value: JsonValue | undefined, path: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') fail(path, 'string', value);
  return value;
}

function optionalInteger(value: JsonValue | undefined, path: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) fail(path, 'integer', value);
  return value;
}

function readList<T>(
  value: JsonValue | undefined,
  path: string,
  read: (item: JsonValue, path: string, index: number) => T,
): T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) fail(path, 'array', value);
  return value.map((item, index) => read(item, `${path}[${index}]`, index));
}

function readStrings(value: JsonValue | undefined, path: string): string[] {
  return readList(value, path, (item, itemPath) => {
    if (typeof item !== 'string') fail(itemPath, 'string', item);
    return item;
  });
}

function readStringMap(value: JsonValue | undefined, path: string): Record<string, string> {
  const map = optionalObject(value, path);
  if (!map) return {};
  for (const [key, item] of Object.entries(map)) {
    if (typeof item !== 'string' && item !== null) fail(`${path}.${key}`, 'string', item);
  }
  return map as Record<string, string>;
}

function readSeLinux(value: JsonValue | undefined, path: string): SeLinuxOptionsModel | undefined {
  const obj = optionalObject(value, path);
  if (!obj) return undefined;
  return {
    type: optionalString(obj.type, `${path}.type`) ?? '',
    user: optionalString(obj.user, `${path}.user`) ?? '',
    role: optionalString(obj.role, `${path}.role`) ?? '',
  };
}

function readProfile(value: JsonValue | undefined, path: string): ProfileModel | undefined {
  const obj = optionalObject(value, path);
  if (!obj) return undefined;
  return { type: optionalString(obj.type, `${path}.type`) ?? '' };
}

function readWindows(value: JsonValue | undefined, path: string): WindowsOptionsModel | undefined {
  const obj = optionalObject(value, path);
  if (!obj) return undefined;
  return { hostProcess: optionalBool(obj.hostProcess, `${path}.hostProcess`) };
}

function readCapabilities(value: JsonValue | undefined, path: string): CapabilitiesModel | undefined {
  const obj = optionalObject(value, path);
  if (!obj) return undefined;
  return { add: readStrings(obj.add, `${path}.add`), drop: readStrings(obj.drop, `${path}.drop`) };
}

function readPodSecurityContext(value: JsonValue | undefined, path: string): PodSecurityContextModel | undefined {
  const sc = optionalObject(value, path);
  if (!sc) return undefined;
  return {
    runAsNonRoot: optionalBool(sc.runAsNonRoot, `${path}.runAsNonRoot`),
    runAsUser: optionalInteger(sc.runAsUser, `${path}.runAsUser`),
    seLinuxOptions: readSeLinux(sc.seLinuxOptions, `${path}.seLinuxOptions`),
    seccompProfile: readProfile(sc.seccompProfile, `${path}.seccompProfile`),
    appArmorProfile: readProfile(sc.appArmorProfile, `${path}.appArmorProfile`),
    sysctls: readList(sc.sysctls, `${path}.sysctls`, (item, itemPath) => {
      const sysctl = optionalObject(item, itemPath);
      return { name: optionalString(sysctl?.name, `${itemPath}.name`) ?? '' };
    }),
    windowsOptions: readWindows(sc.windowsOptions, `${path}.windowsOptions`),
  };
}

function readContainerSecurityContext(
  value: JsonValue | undefined,
  path: string,
): ContainerSecurityContextModel | undefined {
  const sc = optionalObject(value, path);
  if (!sc) return undefined;
  return {
    privileged: optionalBool(sc.privileged, `${path}.privileged`),
    allowPrivilegeEscalation: optionalBool(sc.allowPrivilegeEscalation, `${path}.allowPrivilegeEscalation`),
    runAsNonRoot: optionalBool(sc.runAsNonRoot, `${path}.runAsNonRoot`),
    runAsUser: optionalInteger(sc.runAsUser, `${path}.runAsUser`),
    capabilities: readCapabilities(sc.capabilities, `${path}.capabilities`),
    procMount: optionalString(sc.procMount, `${path}.procMount`),
    seLinuxOptions: readSeLinux(sc.seLinuxOptions, `${path}.seLinuxOptions`),
    seccompProfile: readProfile(sc.seccompProfile, `${path}.seccompProfile`),
    appArmorProfile: readProfile(sc.appArmorProfile, `${path}.appArmorProfile`),
    windowsOptions: readWindows(sc.windowsOptions, `${path}.windowsOptions`),
  };
}

const PROBES = ['livenessProbe', 'readinessProbe', 'startupProbe'] as const;
const LIFECYCLE_HANDLERS = ['postStart', 'preStop'] as const;
const HANDLER_KINDS = ['httpGet', 'tcpSocket'] as const;

/** Hosts of probes, then of lifecycle handlers, in the order the upstream check inspects them. */
function readHandlerHosts(container: JsonObject, path: string): HandlerHostModel[] {
  const hosts: HandlerHostModel[] = [];
  const collect = (handler: JsonObject | undefined, relative: string) => {
    if (!handler) return;
    for (const kind of HANDLER_KINDS) {
      const action = optionalObject(handler[kind], `${path}.${relative}.${kind}`);
      const host = optionalString(action?.host, `${path}.${relative}.${kind}.host`);
      if (host) hosts.push({ path: `${relative}.${kind}.host`, host });
    }
  };
  for (const probe of PROBES) collect(optionalObject(container[probe], `${path}.${probe}`), probe);
  const lifecycle = optionalObject(container.lifecycle, `${path}.lifecycle`);
  if (lifecycle) {
    for (const name of LIFECYCLE_HANDLERS) {
      collect(optionalObject(lifecycle[name], `${path}.lifecycle.${name}`), `lifecycle.${name}`);
    }
  }
  return hosts;
}

function readContainer(value: JsonValue, path: string): ContainerModel {
  const container = optionalObject(value, path) ?? {};
  const hostPorts: ContainerModel['hostPorts'] = [];
  readList(container.ports, `${path}.ports`, (item, itemPath, index) => {
    const port = optionalObject(item, itemPath);
    const hostPort = optionalInteger(port?.hostPort, `${itemPath}.hostPort`) ?? 0;
    if (hostPort !== 0) hostPorts.push({ index, hostPort });
  });
  return {
    name: optionalString(container.name, `${path}.name`) ?? '',
    image: optionalString(container.image, `${path}.image`) ?? '',
    securityContext: readContainerSecurityContext(container.securityContext, `${path}.securityContext`),
    hostPorts,
    handlerHosts: readHandlerHosts(container, path),
  };
}

function readVolume(value: JsonValue, path: string): VolumeModel {
  const volume = optionalObject(value, path) ?? {};
  const sources = new Set<string>();
  for (const [key, item] of Object.entries(volume)) if (item !== null) sources.add(key);
  const hostPath = optionalObject(volume.hostPath, `${path}.hostPath`);
  return {
    name: optionalString(volume.name, `${path}.name`) ?? '',
    sources,
    hostPathPath: hostPath ? (optionalString(hostPath.path, `${path}.hostPath.path`) ?? '') : undefined,
  };
}
