/**
 * The configuration reference (docs/configuration.md), generated from the same description the
 * controllers read and the chart's settings come from (chart-settings.ts): each environment table
 * (variable → field and type), the defaults the controller's loader gives with no variable set, and
 * each field's doc comment in its config class (inherited ones included). Only the part between the
 * two markers is generated; the prose around it is written by hand. configuration-docs.spec.ts fails
 * when the file is stale (`npm run docs:configuration` rewrites it).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import type { VariableType } from '@edict/config';
import { CONTROLLER_ENVIRONMENT } from '@edict/controller-runtime';
import { ADMISSION_ENVIRONMENT, loadControllerConfig } from '@edict/admission-controller';
import { BACKGROUND_ENVIRONMENT, loadBackgroundConfig } from '@edict/background-controller';
import { CLEANUP_ENVIRONMENT, loadCleanupConfig } from '@edict/cleanup-controller';
import { LAUNCHER_ENVIRONMENT, LauncherConfig } from '@edict/launcher';
import { REPORTS_ENVIRONMENT, loadReportsConfig } from '@edict/reports-controller';
import { chartSettings } from './chart-settings';

export const CONFIGURATION_DOC = join('docs', 'configuration.md');
export const START_MARKER = '<!-- configuration:start -->';
export const END_MARKER = '<!-- configuration:end -->';

/** The folders searched for the config classes' sources (their doc comments). */
const SOURCE_ROOTS = ['apps', 'libs'];

type Table = Readonly<Record<string, readonly [string, VariableType]>>;

interface Section {
  readonly title: string;
  readonly intro: string;
  readonly environment: Table;
  /** The configuration as loaded from an empty environment: the defaults, names derived included. */
  readonly defaults: object;
  /** The chart's values key whose `settings.<field>` sets these variables, if any. */
  readonly chartKey?: string;
}

function sections(): Section[] {
  const admission = loadControllerConfig({});
  const own = (table: Table): Table =>
    Object.fromEntries(Object.entries(table).filter(([variable]) => !(variable in CONTROLLER_ENVIRONMENT)));
  return [
    {
      title: 'The launcher (`npm start`)',
      intro: 'Read by `npm start` alone; the controllers it starts read their own variables below.',
      environment: launcherTable(),
      defaults: new LauncherConfig(),
    },
    {
      title: 'Every controller',
      intro:
        'Read by each of the four controllers (the defaults are the same in each). The chart sets them per ' +
        'controller as `<controller>.settings.<field>`, except those it derives itself.',
      environment: CONTROLLER_ENVIRONMENT as Table,
      defaults: admission,
      chartKey: '<controller>',
    },
    {
      title: 'The admission controller',
      intro: '`apps/admission-controller`, `npm run admission-controller`.',
      environment: own(ADMISSION_ENVIRONMENT),
      defaults: admission,
      chartKey: 'admissionController',
    },
    {
      title: 'The background controller',
      intro: '`apps/background-controller`, `npm run background-controller`.',
      environment: own(BACKGROUND_ENVIRONMENT),
      defaults: loadBackgroundConfig({}),
      chartKey: 'backgroundController',
    },
    {
      title: 'The reports controller',
      intro: '`apps/reports-controller`, `npm run reports-controller`.',
      environment: own(REPORTS_ENVIRONMENT),
      defaults: loadReportsConfig({}),
      chartKey: 'reportsController',
    },
    {
      title: 'The cleanup controller',
      intro: '`apps/cleanup-controller`, `npm run cleanup-controller`.',
      environment: own(CLEANUP_ENVIRONMENT),
      defaults: loadCleanupConfig({}),
      chartKey: 'cleanupController',
    },
  ];
}

/** The launcher's table names fields only; their types follow from the defaults. */
function launcherTable(): Table {
  const defaults = new LauncherConfig() as unknown as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(LAUNCHER_ENVIRONMENT).map(([variable, field]) => [
      variable,
      [field, typeof defaults[field] === 'number' ? 'int' : 'string'] as const,
    ]),
  );
}

/** The generated part: one table per section. */
export function configurationReference(): string {
  const settings = chartSettings();
  const docs = new FieldDocs();
  const out: string[] = [];
  for (const section of sections()) {
    out.push(`## ${section.title}`, '', section.intro, '');
    const withChart = section.chartKey !== undefined;
    out.push(
      withChart ? '| variable | type | default | chart value | what |' : '| variable | type | default | what |',
      withChart ? '| --- | --- | --- | --- | --- |' : '| --- | --- | --- | --- |',
    );
    const values = section.defaults as Record<string, unknown>;
    for (const [variable, [field, type]] of Object.entries(section.environment)) {
      const what = docs.of(section.defaults, field) ?? '';
      const cells = [`\`${variable}\``, type, defaultText(values[field])];
      if (withChart) cells.push(chartCell(settings, section.chartKey!, field));
      cells.push(escapeCell(what));
      out.push(`| ${cells.join(' | ')} |`);
    }
    out.push('');
  }
  return out.join('\n');
}

/** docs/configuration.md with its generated part replaced; the hand-written text around it kept. */
export function configurationDoc(current: string): string {
  const start = current.indexOf(START_MARKER);
  const end = current.indexOf(END_MARKER);
  if (start < 0 || end < start) throw new Error(`${CONFIGURATION_DOC} lacks ${START_MARKER} ... ${END_MARKER}`);
  return `${current.slice(0, start + START_MARKER.length)}\n\n${configurationReference()}\n${current.slice(end)}`;
}

function chartCell(settings: Record<string, Record<string, unknown>>, key: string, field: string): string {
  const chartKeys = key === '<controller>' ? Object.keys(settings) : [key];
  return chartKeys.some((chartKey) => settings[chartKey]?.[field] !== undefined)
    ? `\`${key}.settings.${field}\``
    : 'set by the chart';
}

function defaultText(value: unknown): string {
  if (value === undefined || value === '') return 'unset';
  if (Array.isArray(value)) return value.length === 0 ? 'empty' : value.map((item) => `\`${String(item)}\``).join(', ');
  return `\`${String(value)}\``;
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

/** Doc comments of config class fields, read from the classes' sources; a field without one takes its base class's. */
class FieldDocs {
  private readonly classes = new Map<string, Map<string, string>>();
  private readonly files = new Map<string, string>();

  constructor() {
    const wanted = /\bclass\s+(\w*Config)\b/g;
    for (const file of sourceFiles(SOURCE_ROOTS)) {
      const text = readFileSync(file, 'utf8');
      if (!wanted.test(text)) continue;
      wanted.lastIndex = 0;
      this.read(ts.createSourceFile(relative('.', file), text, ts.ScriptTarget.Latest, true));
    }
  }

  /** The doc of `field` on the class of `config`, else on the nearest base class that documents it. */
  of(config: object, field: string): string | undefined {
    for (let proto: unknown = Object.getPrototypeOf(config); proto && proto !== Object.prototype;) {
      const doc = this.classes.get((proto as { constructor: { name: string } }).constructor.name)?.get(field);
      if (doc) return doc;
      proto = Object.getPrototypeOf(proto);
    }
    return undefined;
  }

  private read(source: ts.SourceFile): void {
    const visit = (node: ts.Node): void => {
      if (ts.isClassDeclaration(node) && node.name && node.name.text.endsWith('Config')) {
        const fields = new Map<string, string>();
        for (const member of node.members) {
          if (!ts.isPropertyDeclaration(member) || !ts.isIdentifier(member.name)) continue;
          const doc = ts
            .getJSDocCommentsAndTags(member)
            .filter(ts.isJSDoc)
            .map((jsDoc) => ts.getTextOfJSDocComment(jsDoc.comment) ?? '')
            .join(' ')
            .replace(/\s+/g, ' ')
            .trim();
          if (doc) fields.set(member.name.text, doc);
        }
        // Two config classes of one name would make the lookup by name ambiguous: refuse it.
        const name = node.name.text;
        if (this.files.has(name) && this.files.get(name) !== source.fileName) {
          throw new Error(`two classes named ${name}: ${this.files.get(name)} and ${source.fileName}`);
        }
        this.files.set(name, source.fileName);
        this.classes.set(name, fields);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
}

function sourceFiles(roots: readonly string[]): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'testing') walk(path);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') && !entry.name.endsWith('.d.ts')) {
        files.push(path);
      }
    }
  };
  for (const root of roots) walk(root);
  return files.sort();
}
