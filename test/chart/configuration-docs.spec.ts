/**
 * docs/configuration.md's tables are generated from the controllers' environment tables, defaults and
 * field docs (configuration-docs.ts): this spec fails when the file is out of date
 * (`npm run docs:configuration` rewrites it), and checks the generation itself.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONTROLLER_ENVIRONMENT } from '@edict/controller-runtime';
import { ADMISSION_ENVIRONMENT } from '@edict/admission-controller';
import { BACKGROUND_ENVIRONMENT } from '@edict/background-controller';
import { CLEANUP_ENVIRONMENT } from '@edict/cleanup-controller';
import { LAUNCHER_ENVIRONMENT } from '@edict/launcher';
import { REPORTS_ENVIRONMENT } from '@edict/reports-controller';
import {
  CONFIGURATION_DOC,
  configurationDoc,
  configurationReference,
  END_MARKER,
  START_MARKER,
} from './configuration-docs';

const rewrite = process.env['EDICT_WRITE_CONFIGURATION_DOCS'] === '1';

/** The generated table row of `variable`. */
function rowOf(reference: string, variable: string): string {
  const rows = reference.split('\n').filter((line) => line.startsWith(`| \`${variable}\` |`));
  expect(rows, variable).toHaveLength(1);
  return rows[0]!;
}

describe('the configuration reference generated from the controllers configuration', () => {
  it('docs/configuration.md is up to date (npm run docs:configuration)', () => {
    const current = readFileSync(CONFIGURATION_DOC, 'utf8');
    if (rewrite) writeFileSync(CONFIGURATION_DOC, configurationDoc(current));
    const written = readFileSync(CONFIGURATION_DOC, 'utf8');
    expect(written).toBe(configurationDoc(written));
  });

  it('lists every variable the launcher and the four controllers read, each once', () => {
    const reference = configurationReference();
    const tables = [
      LAUNCHER_ENVIRONMENT,
      ADMISSION_ENVIRONMENT,
      BACKGROUND_ENVIRONMENT,
      REPORTS_ENVIRONMENT,
      CLEANUP_ENVIRONMENT,
    ];
    const own = tables.flatMap((table) =>
      Object.keys(table).filter((variable) => !(variable in CONTROLLER_ENVIRONMENT)),
    );
    for (const variable of Object.keys(CONTROLLER_ENVIRONMENT)) rowOf(reference, variable);
    // A variable two controllers both read (their ports differ by name, EDICT_ENABLE_REPORTING does not) is listed per controller.
    for (const variable of new Set(own)) {
      const expected = own.filter((name) => name === variable).length;
      expect(
        reference.split('\n').filter((line) => line.startsWith(`| \`${variable}\` |`)),
        variable,
      ).toHaveLength(expected);
    }
  });

  it("gives each variable its type, the loader's default, the chart value and the field's doc", () => {
    const reference = configurationReference();
    expect(rowOf(reference, 'EDICT_GEN_WORKERS')).toBe(
      "| `EDICT_GEN_WORKERS` | int | `10` | `backgroundController.settings.genWorkers` | UpdateRequests processed at once (Kyverno's --genWorkers). |",
    );
    // A default the install name derives, and a variable the chart sets itself.
    expect(rowOf(reference, 'EDICT_LEASE_NAME')).toMatch(
      /^\| `EDICT_LEASE_NAME` \| string \| `edict-admission-controller` \| set by the chart \|/,
    );
    // A field documented on a base class (ControllerBaseConfig), a list default.
    expect(rowOf(reference, 'EDICT_OMIT_EVENTS')).toContain('`PolicyApplied`, `PolicySkipped`');
    expect(rowOf(reference, 'EDICT_OMIT_EVENTS')).toContain("Kyverno's --omitEvents");
    expect(rowOf(reference, 'EDICT_API_PORT')).toMatch(/^\| `EDICT_API_PORT` \| int \| `6443` \| Local mode: /);
  });

  it('replaces only what lies between the markers', () => {
    const doc = `# hand-written\n\n${START_MARKER}\nold\n${END_MARKER}\n\nafter\n`;
    const regenerated = configurationDoc(doc);
    expect(regenerated.startsWith(`# hand-written\n\n${START_MARKER}\n\n## The launcher`)).toBe(true);
    expect(regenerated.endsWith(`${END_MARKER}\n\nafter\n`)).toBe(true);
    expect(regenerated).not.toContain('\nold\n');
    expect(() => configurationDoc('# no markers\n')).toThrow(/lacks/);
  });
});
