// ESLint rule: imports between libs and apps follow the layer table in ./layers.mjs.
import { resolve, sep } from 'node:path';
import { APP_IMPORTERS, APPS, LAYERS, TEST_SUPPORT } from './layers.mjs';
import { projectOf } from './lib-boundaries.mjs';

const ALIAS = /^@edict\/([^/]+)(\/testing)?$/;
const USES = new Map(LAYERS.flatMap(({ libs }) => Object.entries(libs)));

/** The libs `roots` use, directly or through each other. */
function reachable(roots) {
  const seen = new Set();
  const pending = [...roots];
  while (pending.length > 0) {
    const lib = pending.pop();
    if (seen.has(lib)) continue;
    seen.add(lib);
    pending.push(...(USES.get(lib) ?? []));
  }
  return seen;
}

/** Specs and the testing entries' code. */
export function isTestCode(file) {
  const path = file.split(sep).join('/');
  return path.endsWith('.spec.ts') || path.includes('/src/testing/');
}

/**
 * What is wrong with `file` (absolute) importing `source` under the layer table, or undefined: an
 * ESLint message id and its data (`from` a project as the table names it, libs/<name> or apps/<name>;
 * `to` a lib or app name).
 */
export function layerProblem(file, source) {
  const alias = ALIAS.exec(source);
  if (!alias) return undefined;
  const project = projectOf(resolve(file));
  const [parent, folder] = project.split('/');
  if (parent !== 'libs' && parent !== 'apps') return undefined; // test/, bench/, scripts/ import anything
  const from = project;
  const to = alias[1];
  const testCode = isTestCode(file);
  if (from === `libs/${to}` || from === `apps/${to}`) return undefined;
  if (alias[2] && !testCode) return { messageId: 'testingEntry', data: { source } };
  if (APPS.includes(to)) {
    if (APP_IMPORTERS.includes(from)) return undefined;
    return { messageId: 'importsApp', data: { source, from, to, importers: APP_IMPORTERS.join(', ') } };
  }
  if (!USES.has(to)) return { messageId: 'unknownLib', data: { source, name: to } };
  if (parent === 'apps') return undefined; // apps may use every lib
  const lib = folder;
  if (!USES.has(lib)) return { messageId: 'unplacedLib', data: { from } };
  const allowed = reachable([...USES.get(lib), ...(testCode ? TEST_SUPPORT : [])]);
  if (allowed.has(to)) return undefined;
  const uses = USES.get(lib).join(', ') || 'no other lib';
  return {
    messageId: 'upward',
    data: { source, from, to, uses: testCode ? `${uses} (tests also: ${TEST_SUPPORT.join(', ')})` : uses },
  };
}

export const layers = {
  meta: {
    type: 'problem',
    docs: { description: 'imports between libs and apps follow the layer table (scripts/eslint/layers.mjs)' },
    schema: [],
    messages: {
      upward:
        "{{from}} may not import '{{source}}': it uses {{uses}} and what they use (layer table: scripts/eslint/layers.mjs)",
      importsApp: "{{from}} may not import the app '{{source}}': only {{importers}} import apps",
      testingEntry: "'{{source}}' is a testing entry: only specs and testing code import it",
      unplacedLib: '{{from}} is not in the layer table (scripts/eslint/layers.mjs); give it a line there',
      unknownLib: "'{{source}}': {{name}} is not in the layer table (scripts/eslint/layers.mjs); give it a line there",
    },
  },
  create(context) {
    function check(node) {
      const source = node.source?.value;
      if (typeof source !== 'string') return;
      const problem = layerProblem(context.filename, source);
      if (problem) context.report({ node: node.source, ...problem });
    }
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};
