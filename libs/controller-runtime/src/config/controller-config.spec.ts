import { IsInt, Min } from 'class-validator';
import { describe, expect, it } from 'vitest';
import type { EnvironmentTable } from '@edict/config';
import {
  CONTROLLER_ENVIRONMENT,
  ControllerBaseConfig,
  ControllerConfigError,
  loadConfig,
  type ConfigSpec,
} from './controller-config';

class SampleConfig extends ControllerBaseConfig {
  override leaseName = 'edict-sample';

  @IsInt()
  @Min(1)
  workers = 2;
}

const ENVIRONMENT: EnvironmentTable<SampleConfig> = {
  ...CONTROLLER_ENVIRONMENT,
  EDICT_SAMPLE_WORKERS: ['workers', 'int'],
  EDICT_SAMPLE_LEASE: ['leaseName', 'string'],
};

const SPEC: ConfigSpec<SampleConfig> = {
  what: 'sample controller',
  type: SampleConfig,
  environment: ENVIRONMENT,
  names: (names) => ({ leaseName: `${names.namespace}-sample` }),
};

describe('loadConfig', () => {
  it('gives the base defaults and the names the install name derives', () => {
    expect(loadConfig(SPEC, {}, {})).toMatchObject({
      namespace: 'edict',
      leaseName: 'edict-sample',
      omitEvents: ['PolicyApplied', 'PolicySkipped'],
      workers: 2,
    });
    expect(loadConfig(SPEC, { EDICT_INSTALL_NAME: 'kyverno' }, {})).toMatchObject({
      namespace: 'kyverno',
      configMapName: 'kyverno',
      leaseName: 'kyverno-sample',
    });
  });

  it("reads the base variables and the controller's own; a name's own variable and overrides win", () => {
    const config = loadConfig(
      SPEC,
      {
        EDICT_INSTALL_NAME: 'kyverno',
        EDICT_SAMPLE_LEASE: 'mine',
        EDICT_EGRESS_BLOCKED_CIDRS: 'none',
        EDICT_SAMPLE_WORKERS: '3',
      },
      { workers: 5 },
    );
    expect(config).toMatchObject({ leaseName: 'mine', egressBlockedCidrs: [], workers: 5, namespace: 'kyverno' });
  });

  it('reads the registry settings: addresses let through for registries only, insecure registries', () => {
    const env = { EDICT_REGISTRY_ALLOWED_ADDRESSES: '127.0.0.1', EDICT_INSECURE_REGISTRIES: '127.0.0.1:5000' };
    expect(loadConfig(SPEC, env, {})).toMatchObject({
      registryAllowedAddresses: ['127.0.0.1'],
      insecureRegistries: ['127.0.0.1:5000'],
    });
    expect(loadConfig(SPEC, {}, {})).toMatchObject({ registryAllowedAddresses: [], insecureRegistries: [] });
    const bad = () =>
      loadConfig(SPEC, { EDICT_REGISTRY_ALLOWED_ADDRESSES: 'localhost', EDICT_INSECURE_REGISTRIES: 'http://x' }, {});
    expect(bad).toThrow(
      /registryAllowedAddresses \(EDICT_REGISTRY_ALLOWED_ADDRESSES\): registryAllowedAddresses must hold IP addresses/,
    );
    expect(bad).toThrow(
      /insecureRegistries \(EDICT_INSECURE_REGISTRIES\): insecureRegistries entries must be host\[:port\] or \*/,
    );
  });

  it("reads Kyverno's TUF settings and the trusted root path; off by default", () => {
    expect(loadConfig(SPEC, {}, {})).toMatchObject({
      enableTuf: false,
      tufMirror: undefined,
      trustedRootPath: undefined,
    });
    const env = {
      EDICT_ENABLE_TUF: 'true',
      EDICT_TUF_MIRROR: 'https://tuf.example.com',
      EDICT_TUF_ROOT: '/etc/tuf/root.json',
      EDICT_TRUSTED_ROOT_PATH: '/etc/sigstore/trusted_root.json',
    };
    expect(loadConfig(SPEC, env, {})).toMatchObject({
      enableTuf: true,
      tufMirror: 'https://tuf.example.com',
      tufRoot: '/etc/tuf/root.json',
      trustedRootPath: '/etc/sigstore/trusted_root.json',
    });
    expect(() => loadConfig(SPEC, { EDICT_TUF_MIRROR: 'ftp://x' }, {})).toThrow(
      /tufMirror \(EDICT_TUF_MIRROR\): tufMirror must be an http\(s\) URL/,
    );
  });

  it('names every bad value with its variable, base and own alike', () => {
    const load = () =>
      loadConfig(SPEC, { EDICT_INSTALL_NAME: 'Bad_Name', EDICT_OMIT_EVENTS: 'Nothing', EDICT_SAMPLE_WORKERS: '0' }, {});
    expect(load).toThrow(ControllerConfigError);
    expect(load).toThrow(/^invalid sample controller configuration: /);
    expect(load).toThrow(/installName \(EDICT_INSTALL_NAME\): install name/);
    expect(load).toThrow(/omitEvents \(EDICT_OMIT_EVENTS\): omitEvents must hold/);
    expect(load).toThrow(/workers \(EDICT_SAMPLE_WORKERS\): workers must not be less than 1/);
  });
});
