/**
 * The parity table (docs/parity/settings.md) and what the chart derives from it (files/refused.json,
 * files/flags.json, the refused values declared in values.schema.json): each Kyverno name has exactly
 * one answer, every declaration names something real, and the generated files are up to date
 * (`npm run docs:parity` rewrites them).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTROLLER_KYVERNO_FLAGS } from '@edict/controller-runtime';
import { SCHEMA_FILE } from '../chart-settings';
import { CONTROLLER_KEYS, KYVERNO_CHART_VALUES, KYVERNO_CONFIGMAP_KEYS, KYVERNO_FLAGS } from './kyverno-names';
import {
  CONTROLLERS,
  configMapReads,
  expandControllers,
  FLAGS_FILE,
  flagsFile,
  PARITY_DOC,
  parityDocument,
  parityRows,
  REFUSED_FILE,
  refusedFile,
  refusedSchema,
  rowProblem,
  schemaHonours,
} from './parity';
import { NOT_APPLICABLE_CONFIGMAP_KEYS, NOT_APPLICABLE_FLAGS, NOT_APPLICABLE_VALUES, PENDING } from './reasons';

const rewrite = process.env['EDICT_WRITE_PARITY'] === '1';

const covers = (name: string, entry: string) => name === entry || name.startsWith(`${entry}.`);

describe('the parity table of Kyverno settings', () => {
  it('the generated files are up to date (npm run docs:parity)', () => {
    if (rewrite) {
      writeFileSync(SCHEMA_FILE, refusedSchema());
      writeFileSync(REFUSED_FILE, refusedFile());
      writeFileSync(FLAGS_FILE, flagsFile());
      mkdirSync(dirname(PARITY_DOC), { recursive: true });
      writeFileSync(PARITY_DOC, parityDocument());
    }
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(refusedSchema());
    expect(readFileSync(REFUSED_FILE, 'utf8')).toBe(refusedFile());
    expect(readFileSync(FLAGS_FILE, 'utf8')).toBe(flagsFile());
    expect(readFileSync(PARITY_DOC, 'utf8')).toBe(parityDocument());
  });

  it('gives every Kyverno name exactly one answer: an Edict setting, a reason, or pending', () => {
    const rows = parityRows();
    expect(rows.length).toBeGreaterThan(500);
    expect(rows.flatMap((row) => rowProblem(row) ?? [])).toEqual([]);
  });

  it('fails a name with no answer, and one with two', () => {
    expect(rowProblem({ kind: 'flag', name: 'admissionController --madeUp', pending: false })).toMatch(/neither/);
    expect(rowProblem({ kind: 'chart value', name: 'x', edict: '`x`', reason: 'because', pending: false })).toMatch(
      /more than one answer/,
    );
    expect(rowProblem({ kind: 'chart value', name: 'x', edict: '`x`', pending: true })).toMatch(/more than one answer/);
  });

  it("maps each controller's flags to variables of that controller's environment table", () => {
    for (const controller of CONTROLLER_KEYS) {
      const { environment, flags } = CONTROLLERS[controller];
      for (const [flag, variable] of Object.entries(flags)) {
        expect(environment, `${controller} --${flag}`).toHaveProperty([variable]);
        if (!(flag in CONTROLLER_KYVERNO_FLAGS))
          expect(KYVERNO_FLAGS[controller], `${controller} --${flag}`).toHaveProperty([flag]);
        // A Go duration is turned into the variable's milliseconds.
        if (KYVERNO_FLAGS[controller][flag] === 'duration') expect(variable).toMatch(/_MS$/);
      }
    }
  });

  it('keeps no stale reason or pending entry: each names a Kyverno name', () => {
    const flags = new Set(
      CONTROLLER_KEYS.flatMap((c) => Object.keys(KYVERNO_FLAGS[c]).flatMap((f) => [f, `${c}.${f}`])),
    );
    for (const flag of [...Object.keys(NOT_APPLICABLE_FLAGS), ...PENDING.flags]) expect(flags, flag).toContain(flag);
    const patterns = [
      ...expandControllers(NOT_APPLICABLE_VALUES).keys(),
      ...expandControllers(Object.fromEntries(PENDING.values.map((v) => [v, v]))).keys(),
    ];
    for (const pattern of patterns.filter((p) => !CONTROLLER_KEYS.some((c) => p.startsWith(`${c}.`)))) {
      expect(
        KYVERNO_CHART_VALUES.some((value) => covers(value, pattern)),
        pattern,
      ).toBe(true);
    }
    for (const key of [...Object.keys(NOT_APPLICABLE_CONFIGMAP_KEYS), ...PENDING.configMapKeys]) {
      expect(KYVERNO_CONFIGMAP_KEYS, key).toContain(key);
    }
  });

  it("reads the chart's schema: honoured, refused (declared with its reason) and unknown values", () => {
    const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as Record<string, unknown>;
    expect(schemaHonours(schema, 'features.backgroundScan.enabled')).toBe(true);
    expect(schemaHonours(schema, 'admissionController.container.image.registry')).toBe(true);
    expect(schemaHonours(schema, 'backgroundController.hostNetwork')).toBe(true);
    expect(schemaHonours(schema, 'admissionController.updateStrategy.rollingUpdate.maxSurge')).toBe(true);
    expect(schemaHonours(schema, 'admissionController.autoscaling.enabled')).toBe(false);
    expect(schemaHonours(schema, 'features.madeUp.enabled')).toBe(false);
  });

  it("finds the ConfigMap keys Edict's parser reads", () => {
    expect(configMapReads('resourceFilters')).toBe(true);
    expect(configMapReads('updateRequestThreshold')).toBe(true);
    expect(configMapReads('notAKyvernoKey')).toBe(false);
  });
});
