import { describe, expect, it } from 'vitest';
import { imageValidatingPolicy, matching } from '../testing';
import { compileImageValidatingPolicy, imageValidatingPolicyErrors } from './compile';
import type { ImageValidatingPolicySpec } from './types';

const KEY = '-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----';

const base: ImageValidatingPolicySpec = {
  matchConstraints: matching('', 'v1', 'pods'),
  matchImageReferences: [{ glob: 'registry.example/*' }],
  attestors: [{ name: 'signer', cosign: { key: { data: KEY }, ctlog: { insecureIgnoreTlog: true } } }],
  attestations: [{ name: 'sbom', intoto: { type: 'https://cyclonedx.org/bom' } }],
  validations: [
    { expression: 'images.containers.all(i, verifyImageSignatures(i, [attestors.signer]) > 0)', message: 'unsigned' },
  ],
};

function errorsOf(spec: ImageValidatingPolicySpec) {
  return imageValidatingPolicyErrors(imageValidatingPolicy('p', spec)).map((e) => `${e.field}: ${e.message}`);
}

describe('compileImageValidatingPolicy', () => {
  it('compiles with Kyverno defaults: Deny, Fail, mutateDigest, verifyDigest and required on', () => {
    const compiled = compileImageValidatingPolicy(imageValidatingPolicy('p', base));
    expect(compiled).toMatchObject({
      kind: 'ImageValidatingPolicy',
      name: 'p',
      validationActions: ['Deny'],
      failurePolicy: 'Fail',
      mutateDigest: true,
      verifyDigest: true,
      required: true,
      admission: true,
      background: true,
      mode: 'Kubernetes',
    });
    const off = compileImageValidatingPolicy(
      imageValidatingPolicy('q', {
        ...base,
        validationConfigurations: { mutateDigest: false, verifyDigest: false, required: false },
      }),
    );
    expect([off.mutateDigest, off.verifyDigest, off.required]).toEqual([false, false, false]);
  });

  it('type-checks every expression with its field path', () => {
    expect(
      errorsOf({
        ...base,
        validations: [{ expression: 'verifyImageSignatures(images.containers, [attestors.signer]) > 0' }],
        images: [{ name: 'custom', expression: 'object.spec.containers.map(c, c.image' }],
        matchImageReferences: [{ expression: 'ref.startsWith(1)' }],
        attestors: [{ name: 'signer', cosign: { key: { expression: '1 + 1' } } }],
      }),
    ).toEqual([
      expect.stringMatching(
        /^spec\.validations\[0\]\.expression: Invalid value: .*compilation failed: .*verifyImageSignatures/,
      ),
      expect.stringMatching(/^spec\.images\[0\]\.expression: Invalid value: .*compilation failed/),
      expect.stringMatching(/^spec\.matchImageReferences\[0\]\.expression: Invalid value: .*compilation failed/),
      expect.stringMatching(/^spec\.attestors\[0\]\.cosign\.key\.expression: Invalid value: .*must evaluate to string/),
    ]);
  });

  it('keeps images, attestors and attestations out of match conditions', () => {
    expect(errorsOf({ ...base, matchConditions: [{ name: 'c', expression: 'size(images.containers) > 0' }] })).toEqual([
      expect.stringMatching(/^spec\.matchConditions\[0\]\.expression: Invalid value: .*compilation failed/),
    ]);
  });

  it('refuses what the CRD refuses: one-of rules, names, types of attestations', () => {
    expect(
      errorsOf({
        ...base,
        matchImageReferences: [{ glob: 'a/*', expression: 'true' }, {}],
        attestors: [
          { name: 'a', cosign: { key: { data: KEY } }, notary: { certs: { value: 'x' } } },
          { name: 'a', notary: {} },
          { name: 'not-an-identifier', cosign: { keyless: { identities: [] } } },
        ],
        attestations: [
          { name: 'x', intoto: { type: 't' }, referrer: { type: 'r' } },
          { name: 'y', referrer: {} },
        ],
        images: [{ name: 'c' }],
        validationConfigurations: { required: 'yes' as unknown as boolean },
      }),
    ).toEqual([
      'spec.matchImageReferences[0]: Invalid value: must specify exactly one of "glob", "expression"',
      'spec.matchImageReferences[1]: Invalid value: must specify exactly one of "glob", "expression"',
      'spec.images[0].expression: Required value',
      'spec.attestors[1].name: Duplicate value: "a"',
      'spec.attestors[2].name: Invalid value: "not-an-identifier": must be a CEL identifier',
      'spec.attestors[0]: Invalid value: must specify exactly one of "cosign", "notary"',
      'spec.attestors[1].notary.certs: Required value',
      'spec.attestors[2].cosign.keyless.identities: Required value: at least one identity',
      'spec.attestations[0]: Invalid value: must specify exactly one of "intoto", "referrer"',
      'spec.attestations[1].referrer.type: Required value',
      'spec.validationConfigurations.required: Invalid value: "yes": must be a boolean',
    ]);
  });

  it('refuses what Edict cannot do rather than ignore it: KMS, cloud credential helpers, tag prefixes, TUF roots by path', () => {
    expect(
      errorsOf({
        ...base,
        attestors: [
          { name: 'kms', cosign: { key: { kms: 'awskms:///alias/x' } } },
          {
            name: 'tuf',
            cosign: {
              keyless: { identities: [{ subject: 's' }] },
              tuf: { root: { path: '/etc/root.json' } },
              source: { tagPrefix: 'v' },
            },
          },
        ],
        credentials: { providers: ['amazon', 'default'] },
      }),
    ).toEqual([
      expect.stringMatching(/^spec\.attestors\[0\]\.cosign\.key\.kms: Unsupported value: .*KMS keys are not supported/),
      expect.stringMatching(/^spec\.attestors\[1\]\.cosign\.source\.tagPrefix: Unsupported value/),
      expect.stringMatching(/^spec\.attestors\[1\]\.cosign\.tuf\.root\.path: Unsupported value/),
      expect.stringMatching(
        /^spec\.credentials\.providers\[0\]: Unsupported value: "amazon": Edict reads registry credentials from Secrets only/,
      ),
    ]);
  });

  it('shares ValidatingPolicy rules: actions, matchConstraints, validations', () => {
    expect(
      errorsOf({ ...base, validationActions: ['Deny', 'Warn'], matchConstraints: undefined, validations: [] }),
    ).toEqual([
      expect.stringMatching(/^spec\.validationActions: Invalid value: .*must not contain both Deny and Warn/),
      'spec.matchConstraints: Required value: a matchConstraints with at least one resource rule is required',
      'spec.validations: Required value: validations and auditAnnotations may not both be empty',
    ]);
  });

  it('generates pod-controller configs whose expressions and extractors reach the template', () => {
    const compiled = compileImageValidatingPolicy(
      imageValidatingPolicy('auto', {
        ...base,
        images: [{ name: 'sidecars', expression: 'object.spec.containers.map(c, c.image)' }],
      }),
    );
    expect(compiled.autogen.map((config) => config.name)).toEqual(['cronjobs', 'defaults']);
    const defaults = compiled.autogenStatus.configs as unknown as Record<string, { spec: ImageValidatingPolicySpec }>;
    expect(defaults.defaults?.spec.images).toEqual([
      { name: 'sidecars', expression: 'object.spec.template.spec.containers.map(c, c.image)' },
    ]);
    expect(defaults.cronjobs?.spec.images?.[0]?.expression).toBe(
      'object.spec.jobTemplate.spec.template.spec.containers.map(c, c.image)',
    );
    expect(compiled.matchConstraints.resourceRules?.map((rule) => rule.resources)).toEqual([
      ['pods'],
      ['cronjobs'],
      ['daemonsets', 'deployments', 'replicasets', 'statefulsets'],
      ['jobs'],
    ]);
  });

  it('is not a ValidatingPolicy compiler', () => {
    expect(
      imageValidatingPolicyErrors({
        apiVersion: 'policies.kyverno.io/v1',
        kind: 'ValidatingPolicy',
        metadata: { name: 'x' },
      }),
    ).toEqual([{ field: 'kind', message: expect.stringContaining('not a policies.kyverno.io ImageValidatingPolicy') }]);
  });
});
