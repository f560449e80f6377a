// ESLint rule: code reaches another lib or app only through its barrels, `@edict/<name>`,
// `@edict/<name>/testing` and the other entries tsconfig.json declares (such as the Nest-free
// `@edict/kube/client`), never a path inside it, by alias or by a relative path.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Top folders whose subfolders are separate projects (libs/engine, apps/cli, test/e2e-conformance...). */
const PROJECT_PARENTS = new Set(['apps', 'libs', 'test']);
const ALIAS = /^@edict\/([^/]+)(\/.*)?$/;
/** The entries tsconfig.json's paths declare (each one a folder with its index.ts barrel). */
const DECLARED_ENTRIES = new Set(
  Object.keys(JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')).compilerOptions?.paths ?? {}),
);

/** `libs/engine` for any path inside it; the top folder for files elsewhere (bench, scripts). */
export function projectOf(path) {
  const parts = relative(ROOT, path).split(sep);
  return PROJECT_PARENTS.has(parts[0]) && parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0];
}

export const libBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: 'imports across libs and apps go through their barrels (@edict/<name>[/testing])' },
    schema: [],
    messages: {
      deepAlias: "'{{source}}' reaches inside @edict/{{name}}: import '@edict/{{name}}' or '@edict/{{name}}/testing'",
      crossesProject:
        "'{{source}}' reaches from {{from}} into {{to}} by path: import through its barrel (@edict/<name>) instead",
    },
  },
  create(context) {
    const file = context.filename;
    function check(node) {
      const source = node.source?.value;
      if (typeof source !== 'string') return;
      const alias = ALIAS.exec(source);
      if (alias) {
        if (alias[2] !== undefined && alias[2] !== '/testing' && !DECLARED_ENTRIES.has(source)) {
          context.report({ node: node.source, messageId: 'deepAlias', data: { source, name: alias[1] } });
        }
        return;
      }
      if (!source.startsWith('.')) return;
      const from = projectOf(file);
      const to = projectOf(resolve(dirname(file), source));
      if (from !== to && (to.startsWith('libs/') || to.startsWith('apps/'))) {
        context.report({ node: node.source, messageId: 'crossesProject', data: { source, from, to } });
      }
    }
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};
