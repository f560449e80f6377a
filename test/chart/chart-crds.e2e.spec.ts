/**
 * The chart's CRDs are generated from the engine's one schema source: this spec fails when
 * charts/edict/files/crds differs from the generator (`npm run chart:crds` rewrites the files), and checks
 * that each generated schema is structural, as kube-apiserver requires before it serves a CRD.
 */
import { readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { customResourceDefinitions, structuralProblems } from '@edict/engine';
import { type JsonObject } from '@edict/foundation';
import { readCrdManifests } from '@edict/policy';
import { CRD_DIRECTORY, crdFiles } from './chart-crds';
import { renderChart } from './helm';

const rewrite = process.env['EDICT_WRITE_CHART_CRDS'] === '1';

interface Version {
  name: string;
  schema: { openAPIV3Schema: JsonObject };
  additionalPrinterColumns?: Array<{ name: string; jsonPath: string }>;
}
const versionsOf = (crd: JsonObject) => (crd.spec as unknown as { versions: Version[] }).versions;
const nameOf = (crd: JsonObject) => (crd.metadata as { name: string }).name;

describe('the chart CRDs generated from the schema source', () => {
  it('charts/edict/files/crds is up to date (npm run chart:crds)', () => {
    const files = crdFiles();
    if (rewrite) {
      for (const name of readdirSync(CRD_DIRECTORY)) {
        if (name.endsWith('.yaml') && !files.some((f) => f.name === name)) unlinkSync(join(CRD_DIRECTORY, name));
      }
      for (const file of files) writeFileSync(join(CRD_DIRECTORY, file.name), file.text);
    }
    expect(
      readdirSync(CRD_DIRECTORY)
        .filter((n) => n.endsWith('.yaml'))
        .sort(),
    ).toEqual(files.map((f) => f.name).sort());
    for (const file of files) expect(readFileSync(join(CRD_DIRECTORY, file.name), 'utf8'), file.name).toBe(file.text);
  });

  it('reads back, as the installer reads it, to the generated objects', () => {
    expect(readCrdManifests(CRD_DIRECTORY)).toEqual(customResourceDefinitions());
  });

  it('gives every CRD version a structural schema', () => {
    const crds = customResourceDefinitions();
    expect(crds).toHaveLength(24);
    for (const crd of crds) {
      for (const version of versionsOf(crd)) {
        expect(structuralProblems(version.schema.openAPIV3Schema), `${nameOf(crd)} ${version.name}`).toEqual([]);
      }
    }
  });

  it('ships them in what helm renders, each version structural', () => {
    const rendered = renderChart(['--include-crds']).filter((object) => object.kind === 'CustomResourceDefinition');
    expect(rendered).toEqual(customResourceDefinitions());
    for (const crd of rendered as unknown as JsonObject[]) {
      for (const version of versionsOf(crd)) expect(structuralProblems(version.schema.openAPIV3Schema)).toEqual([]);
    }
  });

  it('types ClusterPolicy as Kyverno does: enums, defaults, required fields, no unknown fields, docs for kubectl explain', () => {
    const cpol = customResourceDefinitions().find((crd) => nameOf(crd) === 'clusterpolicies.kyverno.io')!;
    const spec = (versionsOf(cpol)[0]!.schema.openAPIV3Schema.properties as Record<string, JsonObject>).spec!;
    const props = spec.properties as Record<string, JsonObject>;
    expect(props.validationFailureAction).toMatchObject({
      type: 'string',
      enum: ['audit', 'enforce', 'Audit', 'Enforce'],
      default: 'Audit',
    });
    expect(props.admission).toMatchObject({ type: 'boolean', default: true });
    expect(props.background).toMatchObject({ type: 'boolean', default: true });
    expect(spec['x-kubernetes-preserve-unknown-fields']).toBeUndefined();
    const rule = props.rules!.items as JsonObject;
    expect(rule.required).toEqual(['match', 'name']);
    const ruleProps = rule.properties as Record<string, JsonObject>;
    for (const field of [
      'match',
      'exclude',
      'validate',
      'mutate',
      'generate',
      'verifyImages',
      'context',
      'preconditions',
    ]) {
      expect(typeof ruleProps[field]!.description, field).toBe('string');
    }
    const validate = ruleProps.validate!;
    expect(validate['x-kubernetes-preserve-unknown-fields']).toBeUndefined();
    for (const [name, child] of Object.entries(validate.properties as Record<string, JsonObject>)) {
      expect(typeof child.description, `validate.${name}`).toBe('string');
    }
    // A nested foreach is where the recursion is cut, as in Kyverno's CRD.
    const foreach = (validate.properties as Record<string, JsonObject>).foreach!.items as JsonObject;
    expect((foreach.properties as Record<string, JsonObject>).foreach!.items as JsonObject).toEqual({
      'x-kubernetes-preserve-unknown-fields': true,
    });
  });

  it('keeps the printer columns Kyverno shows', () => {
    const columns = (name: string) =>
      versionsOf(customResourceDefinitions().find((crd) => nameOf(crd) === name)!)[0]!.additionalPrinterColumns!.map(
        (c) => c.name,
      );
    expect(columns('clusterpolicies.kyverno.io')).toEqual([
      'ADMISSION',
      'BACKGROUND',
      'READY',
      'AGE',
      'FAILURE POLICY',
      'VALIDATE',
      'MUTATE',
      'GENERATE',
      'VERIFY IMAGES',
      'MESSAGE',
    ]);
    expect(columns('policyreports.wgpolicyk8s.io')).toEqual([
      'Kind',
      'Name',
      'Pass',
      'Fail',
      'Warn',
      'Error',
      'Skip',
      'Age',
    ]);
  });

  it("serves Kyverno's CEL policy kinds as v1, stored as v1beta1, v1alpha1 deprecated, with their short names and columns", () => {
    const crd = (name: string) => customResourceDefinitions().find((c) => nameOf(c) === name)!;
    for (const [name, shortNames, scope] of [
      ['validatingpolicies.policies.kyverno.io', ['vpol'], 'Cluster'],
      ['namespacedvalidatingpolicies.policies.kyverno.io', ['nvpol'], 'Namespaced'],
      ['imagevalidatingpolicies.policies.kyverno.io', ['ivpol'], 'Cluster'],
      ['namespacedimagevalidatingpolicies.policies.kyverno.io', ['nivpol'], 'Namespaced'],
      ['policyexceptions.policies.kyverno.io', undefined, 'Namespaced'],
      ['mutatingpolicies.policies.kyverno.io', ['mpol'], 'Cluster'],
      ['namespacedmutatingpolicies.policies.kyverno.io', ['nmpol'], 'Namespaced'],
      ['generatingpolicies.policies.kyverno.io', ['gpol'], 'Cluster'],
      ['namespacedgeneratingpolicies.policies.kyverno.io', ['ngpol'], 'Namespaced'],
      ['deletingpolicies.policies.kyverno.io', ['dpol'], 'Cluster'],
      ['namespaceddeletingpolicies.policies.kyverno.io', ['ndpol'], 'Namespaced'],
    ] as const) {
      const spec = crd(name).spec as { scope: string; names: { shortNames?: string[]; categories: string[] } };
      expect(spec.scope, name).toBe(scope);
      expect(spec.names.shortNames, name).toEqual(shortNames);
      expect(spec.names.categories, name).toEqual(['kyverno']);
      const versions = versionsOf(crd(name)) as unknown as Array<Record<string, unknown>>;
      expect(
        versions.map((v) => [v.name, v.served, v.storage, v.deprecated ?? false]),
        name,
      ).toEqual([
        ['v1', true, false, false],
        ['v1alpha1', true, false, true],
        ['v1beta1', true, true, false],
      ]);
    }
    const vpolVersion = versionsOf(crd('validatingpolicies.policies.kyverno.io'))[0]!;
    expect(vpolVersion.additionalPrinterColumns).toEqual([
      { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      { name: 'READY', type: 'string', jsonPath: '.status.conditionStatus.ready' },
    ]);
    const spec = (vpolVersion.schema.openAPIV3Schema.properties as Record<string, JsonObject>).spec!;
    expect(spec['x-kubernetes-preserve-unknown-fields']).toBeUndefined();
    const props = spec.properties as Record<string, JsonObject>;
    expect(props.failurePolicy).toMatchObject({ enum: ['Ignore', 'Fail'] });
    expect((props.validationActions!.items as JsonObject).enum).toEqual(['Deny', 'Audit', 'Warn']);
  });

  it("types MutatingPolicy, GeneratingPolicy and DeletingPolicy as Kyverno does, with Kyverno's columns and a status subresource", () => {
    const crd = (name: string) => customResourceDefinitions().find((c) => nameOf(c) === name)!;
    const specOf = (version: Version) =>
      (version.schema.openAPIV3Schema.properties as Record<string, JsonObject>).spec as JsonObject & {
        properties: Record<string, JsonObject>;
      };
    const age = { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' };
    const ready = { name: 'READY', type: 'string', jsonPath: '.status.conditionStatus.ready' };
    for (const plural of ['mutatingpolicies', 'generatingpolicies', 'deletingpolicies']) {
      for (const name of [`${plural}.policies.kyverno.io`, `namespaced${plural}.policies.kyverno.io`]) {
        for (const version of versionsOf(crd(name)) as unknown as Array<Version & Record<string, unknown>>) {
          expect(version.subresources, name).toEqual({ status: {} });
          expect(version.additionalPrinterColumns, name).toEqual(
            plural === 'generatingpolicies' ? [age] : [age, ready],
          );
          expect(specOf(version)['x-kubernetes-preserve-unknown-fields'], name).toBeUndefined();
        }
      }
    }
    const mpol = versionsOf(crd('mutatingpolicies.policies.kyverno.io'))[0]! as Version & Record<string, unknown>;
    expect(mpol.selectableFields).toEqual([{ jsonPath: '.spec.evaluation.mode' }]);
    const mpolProps = specOf(mpol).properties;
    expect((mpolProps.mutations!.items as JsonObject).required).toEqual(['patchType']);
    expect(Object.keys(mpolProps.targetMatchConstraints!.properties as JsonObject)).toEqual(
      expect.arrayContaining(['expression', 'resourceRules', 'namespaceSelector', 'objectSelector']),
    );
    const evaluation = mpolProps.evaluation!.properties as Record<string, JsonObject>;
    expect((evaluation.mutateExisting!.properties as Record<string, JsonObject>).enabled).toMatchObject({
      type: 'boolean',
      default: false,
    });
    const mpolStatus = (mpol.schema.openAPIV3Schema.properties as Record<string, JsonObject>).status!;
    expect(Object.keys(mpolStatus.properties as JsonObject).sort()).toEqual([
      'autogen',
      'conditionStatus',
      'generated',
    ]);

    const gpol = specOf(versionsOf(crd('generatingpolicies.policies.kyverno.io'))[0]!);
    expect(gpol.required).toEqual(['generate']);
    expect(gpol.properties.generate).toMatchObject({ type: 'array', minItems: 1 });
    const gpolEvaluation = gpol.properties.evaluation!.properties as Record<string, JsonObject>;
    for (const [field, byDefault] of [
      ['admission', true],
      ['generateExisting', false],
      ['synchronize', false],
      ['orphanDownstreamOnPolicyDelete', false],
    ] as const) {
      expect((gpolEvaluation[field]!.properties as Record<string, JsonObject>).enabled, field).toMatchObject({
        default: byDefault,
      });
    }

    const dpolVersion = versionsOf(crd('deletingpolicies.policies.kyverno.io'))[0]!;
    const dpol = specOf(dpolVersion);
    expect(dpol.required).toEqual(['schedule']);
    expect(dpol.properties.deletionPropagationPolicy).toMatchObject({ enum: ['Foreground', 'Background', 'Orphan'] });
    const dpolStatus = (dpolVersion.schema.openAPIV3Schema.properties as Record<string, JsonObject>).status!;
    expect((dpolStatus.properties as Record<string, JsonObject>).lastExecutionTime).toMatchObject({
      type: 'string',
      format: 'date-time',
    });
  });

  it('types ImageValidatingPolicy as Kyverno does: one signer per attestor, digest settings true by default', () => {
    const crd = customResourceDefinitions().find((c) => nameOf(c) === 'imagevalidatingpolicies.policies.kyverno.io')!;
    const version = versionsOf(crd)[0]!;
    expect(version.additionalPrinterColumns).toEqual([
      { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      { name: 'READY', type: 'string', jsonPath: '.status.conditionStatus.ready' },
    ]);
    const spec = (version.schema.openAPIV3Schema.properties as Record<string, JsonObject>).spec!;
    expect(spec.required).toEqual(['attestors', 'validations']);
    const props = spec.properties as Record<string, JsonObject>;
    expect((props.attestors!.items as JsonObject).oneOf).toEqual([{ required: ['cosign'] }, { required: ['notary'] }]);
    expect((props.matchImageReferences!.items as JsonObject).oneOf).toEqual([
      { required: ['glob'] },
      { required: ['expression'] },
    ]);
    const configurations = props.validationConfigurations!;
    expect(configurations.default).toEqual({});
    for (const field of ['mutateDigest', 'verifyDigest', 'required']) {
      expect((configurations.properties as Record<string, JsonObject>)[field], field).toMatchObject({
        type: 'boolean',
        default: true,
      });
    }
    expect(((props.credentials!.properties as Record<string, JsonObject>).providers!.items as JsonObject).enum).toEqual(
      ['default', 'amazon', 'azure', 'google', 'github'],
    );
  });
});

describe('the structural check', () => {
  it('finds what kube-apiserver refuses', () => {
    expect(
      structuralProblems({
        type: 'object',
        properties: {
          metadata: { type: 'object', properties: { labels: { type: 'object' } } },
          spec: {
            type: 'object',
            properties: { a: { type: 'string' } },
            additionalProperties: { type: 'string' },
            oneOf: [{ required: ['b'], type: 'object' }],
          },
          untyped: { description: 'no type' },
          list: { type: 'array' },
        },
      }),
    ).toEqual([
      'openAPIV3Schema.properties.metadata.properties.labels: metadata may only restrict name and generateName',
      'openAPIV3Schema.properties.spec: properties and additionalProperties are mutually exclusive',
      'openAPIV3Schema.properties.spec.oneOf[0].type: not allowed inside a junctor',
      'openAPIV3Schema.properties.spec.oneOf[0].required: b is not a declared property',
      'openAPIV3Schema.properties.untyped.type: must not be empty (or set x-kubernetes-preserve-unknown-fields)',
      'openAPIV3Schema.properties.list.items: an array needs one items schema',
    ]);
  });
});
