/**
 * The chart's settings are generated from the controllers' own configuration tables: this spec
 * fails when charts/edict/files/settings.json or values.schema.json's settings definitions are out
 * of date (`npm run chart:settings` rewrites them), and checks the generation itself.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chartSchema, chartSettings, chartSettingsFile, SCHEMA_FILE, SETTINGS_FILE } from './chart-settings';

const rewrite = process.env['EDICT_WRITE_CHART_SETTINGS'] === '1';

describe('the chart settings generated from the controllers configuration', () => {
  it('settings.json and values.schema.json are up to date (npm run chart:settings)', () => {
    if (rewrite) {
      writeFileSync(SETTINGS_FILE, chartSettingsFile());
      writeFileSync(SCHEMA_FILE, chartSchema());
    }
    expect(readFileSync(SETTINGS_FILE, 'utf8')).toBe(chartSettingsFile());
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(chartSchema());
  });

  it("maps each controller's own settings to its variable, leaving what the chart sets itself out", () => {
    const settings = chartSettings();
    expect(settings['backgroundController']!['genWorkers']).toEqual({ env: 'EDICT_GEN_WORKERS', type: 'int' });
    expect(settings['admissionController']!['maxInFlight']).toEqual({ env: 'EDICT_MAX_IN_FLIGHT', type: 'int' });
    expect(settings['reportsController']!['backgroundScan']).toEqual({ env: 'EDICT_BACKGROUND_SCAN', type: 'bool' });
    expect(settings['admissionController']!['drainTimeoutMs']).toEqual({
      env: 'EDICT_DRAIN_TIMEOUT_MS',
      type: 'int',
    });
    for (const fields of Object.values(settings)) {
      for (const managed of ['installName', 'namespace', 'port', 'kubeSource', 'leaseName', 'omitEvents']) {
        expect(fields).not.toHaveProperty(managed);
      }
    }
  });

  it("gives each schema property the controller's default", () => {
    const schema = JSON.parse(chartSchema()) as {
      $defs: Record<string, { properties: Record<string, { default?: unknown; type: string }> }>;
    };
    expect(schema.$defs['backgroundControllerSettings']!.properties['genWorkers']).toMatchObject({
      type: 'integer',
      default: 10,
    });
    expect(schema.$defs['cleanupControllerSettings']!.properties['workers']).toMatchObject({ type: 'integer' });
  });
});
