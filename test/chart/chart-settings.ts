/**
 * The Helm chart's part of the controllers' settings, generated from the one description the
 * controllers read: each config's environment table (variable → field and type) and its class's
 * defaults. Two outputs, both committed and checked up to date by chart-settings.spec.ts
 * (`npm run chart:settings` rewrites them):
 *  - charts/edict/files/settings.json: per controller, each `settings.<field>` value's variable and
 *    type, which the Deployment template turns into env entries;
 *  - the `$defs.<controller>Settings` schemas of charts/edict/values.schema.json (types, defaults).
 * Fields the chart sets itself (names derived from the install, where the controller listens, how
 * it reaches the API server, what `features.*` sets) are not settings.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { VariableType } from '@edict/config';
import { ADMISSION_ENVIRONMENT, ControllerConfig } from '@edict/admission-controller';
import { BACKGROUND_ENVIRONMENT, BackgroundConfig } from '@edict/background-controller';
import { CLEANUP_ENVIRONMENT, CleanupConfig } from '@edict/cleanup-controller';
import { REPORTS_ENVIRONMENT, ReportsConfig } from '@edict/reports-controller';

export const CHART_DIRECTORY = join('charts', 'edict');
export const SETTINGS_FILE = join(CHART_DIRECTORY, 'files', 'settings.json');
export const SCHEMA_FILE = join(CHART_DIRECTORY, 'values.schema.json');

/** Set by the chart's templates from the install, its Services and `features.*`, never through `settings`. */
export const CHART_MANAGED_FIELDS: ReadonlySet<string> = new Set([
  'installName',
  'namespace',
  'configMapName',
  'kubeSource',
  'kubeconfigPath',
  'kubeconfig',
  'host',
  'port',
  'leaseName',
  'leaseIdentity',
  'serviceName',
  'deploymentName',
  'webhookUrl',
  'webhookServicePort',
  'backgroundUsername',
  'reportsUsername',
  'admissionReports',
  'validatingAdmissionPolicyReports',
  'mutatingAdmissionPolicyReports',
  'aggregateReports',
  'policyReports',
  'openreportsEnabled',
  'allowedResults',
  'exceptionNamespaces',
  'omitEvents',
  'generateValidatingAdmissionPolicy',
  'generateMutatingAdmissionPolicy',
  'metricsPort',
  'disableMetrics',
  // Kyverno's per-controller `tracing.*` and `features.logging.*` values.
  'enableTracing',
  'tracingAddress',
  'tracingPort',
  'tracingCreds',
  'loggingFormat',
  'verbosity',
]);

export interface ControllerSettingsSource {
  readonly environment: Readonly<Record<string, readonly [string, VariableType]>>;
  readonly defaults: object;
}

/** The chart's values keys (Kyverno's names), each with its controller's table and defaults. */
export const CONTROLLERS: Readonly<Record<string, ControllerSettingsSource>> = {
  admissionController: { environment: ADMISSION_ENVIRONMENT, defaults: new ControllerConfig() },
  backgroundController: { environment: BACKGROUND_ENVIRONMENT, defaults: new BackgroundConfig() },
  reportsController: { environment: REPORTS_ENVIRONMENT, defaults: new ReportsConfig() },
  cleanupController: { environment: CLEANUP_ENVIRONMENT, defaults: new CleanupConfig() },
};

export interface ChartSetting {
  readonly env: string;
  readonly type: VariableType;
}

const JSON_SCHEMA_TYPES: Record<VariableType, object> = {
  int: { type: 'integer', minimum: 0 },
  bool: { type: 'boolean' },
  string: { type: 'string' },
  list: { type: 'array', items: { type: 'string' } },
};

/** `settings.json`: values key → field → its variable and type. */
export function chartSettings(): Record<string, Record<string, ChartSetting>> {
  const settings: Record<string, Record<string, ChartSetting>> = {};
  for (const [key, { environment }] of Object.entries(CONTROLLERS)) {
    const fields: Record<string, ChartSetting> = {};
    for (const [env, [field, type]] of Object.entries(environment)) {
      if (!CHART_MANAGED_FIELDS.has(field)) fields[field] = { env, type };
    }
    settings[key] = sortedByKey(fields);
  }
  return settings;
}

/** values.schema.json with its `<key>Settings` definitions generated (the rest as written). */
export function chartSchema(current: string = readFileSync(SCHEMA_FILE, 'utf8')): string {
  const schema = JSON.parse(current) as { $defs?: Record<string, unknown> };
  const definitions = { ...schema.$defs };
  for (const [key, fields] of Object.entries(chartSettings())) {
    const defaults = CONTROLLERS[key]!.defaults as Record<string, unknown>;
    const properties: Record<string, object> = {};
    for (const [field, { env, type }] of Object.entries(fields)) {
      const fallback = defaults[field];
      properties[field] = {
        ...JSON_SCHEMA_TYPES[type],
        description: `${env}`,
        ...(fallback === undefined ? {} : { default: fallback }),
      };
    }
    definitions[`${key}Settings`] = {
      type: 'object',
      description: `The ${key}'s settings (generated from its configuration; unset ones keep these defaults)`,
      additionalProperties: false,
      properties,
    };
  }
  return `${JSON.stringify({ ...schema, $defs: sortedByKey(definitions) }, null, 2)}\n`;
}

export function chartSettingsFile(): string {
  return `${JSON.stringify(chartSettings(), null, 2)}\n`;
}

function sortedByKey<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}
