import { existsSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { layerProblem } from '../../scripts/eslint/layer-rule.mjs';
import { APPS, LAYERS } from '../../scripts/eslint/layers.mjs';
import { readSources, specifiersOf } from './import-graph';

// The layer table (scripts/eslint/layers.mjs): the repo follows it, it points one way, and the
// `edict/layers` ESLint rule rejects imports planted against it.
const ROOT = resolve(__dirname, '../..');

/** Every `@edict/...` import in apps/ and libs/ as `file: source`, with what the table says of it. */
function repoImports(): { where: string; file: string; source: string }[] {
  return [...readSources(['apps', 'libs'])].flatMap(([file, text]) =>
    specifiersOf(file, text)
      .filter((source) => source.startsWith('@edict/'))
      .map((source) => ({ where: `${file}: ${source}`, file: resolve(ROOT, file), source })),
  );
}

describe('the layer table', () => {
  const layerOf = new Map(LAYERS.flatMap(({ libs }, index) => Object.keys(libs).map((lib) => [lib, index])));

  it('names each lib once and lets a lib use only libs of lower layers', () => {
    const names = LAYERS.flatMap(({ libs }) => Object.keys(libs));
    expect(names.length).toBe(new Set(names).size);
    const upward = LAYERS.flatMap(({ libs }, index) =>
      Object.entries(libs).flatMap(([lib, uses]) =>
        uses.filter((used) => !(layerOf.get(used)! < index)).map((used) => `${lib} uses ${used}`),
      ),
    );
    expect(upward).toEqual([]);
  });

  it('places every lib and app folder', () => {
    const folders = (parent: string): string[] =>
      readdirSync(resolve(ROOT, parent), { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && existsSync(resolve(ROOT, parent, entry.name, 'src')))
        .map((entry) => entry.name);
    expect(folders('libs').filter((lib) => !layerOf.has(lib))).toEqual([]);
    expect(folders('apps').filter((app) => !APPS.includes(app))).toEqual([]);
  });

  it('holds for every import in apps/ and libs/', { timeout: 60_000 }, () => {
    const broken = repoImports()
      .map(({ where, file, source }) => ({ where, problem: layerProblem(file, source) }))
      .filter(({ problem }) => problem !== undefined)
      .map(({ where, problem }) => `${where} (${problem!.messageId})`);
    expect(broken).toEqual([]);
  });
});

describe('planted violations (edict/layers through eslint.config.mjs)', () => {
  let eslint: ESLint;
  beforeAll(() => {
    eslint = new ESLint({ cwd: ROOT });
  });

  async function layerProblems(path: string, source: string): Promise<string[]> {
    const [result] = await eslint.lintText(`${source}\nexport const used = [imported];\n`, {
      filePath: resolve(ROOT, path),
    });
    return (result?.messages ?? []).map((message) => `${message.ruleId}: ${message.message}`);
  }

  it.each([
    [
      'libs/kube/src/lint-fixture.ts',
      "import { imported } from '@edict/policy';",
      /libs\/kube may not import '@edict\/policy'/,
    ],
    [
      'libs/cel/src/lint-fixture.ts',
      "import { imported } from '@edict/engine';",
      /libs\/cel may not import '@edict\/engine'/,
    ],
    [
      'libs/foundation/src/lint-fixture.ts',
      "export { imported } from '@edict/kube';",
      /libs\/foundation may not import/,
    ],
    [
      'libs/jmespath/src/lint-fixture.ts',
      "import { imported } from '@edict/cel';",
      /libs\/jmespath may not import '@edict\/cel'/,
    ],
    [
      'libs/controller-manager/src/lint-fixture.ts',
      "import { imported } from '@edict/engine';",
      /may not import '@edict\/engine'/,
    ],
    [
      'libs/policy/src/lint-fixture.spec.ts',
      "import { imported } from '@edict/reports/testing';",
      /libs\/policy may not import/,
    ],
    [
      'libs/webhook-config/src/lint-fixture.ts',
      "import { imported } from '@edict/controller-runtime';",
      /libs\/webhook-config may not import '@edict\/controller-runtime'/,
    ],
  ])('rejects an upward import: %s %s', { timeout: 60_000 }, async (path, line, message) => {
    expect(await layerProblems(path, line)).toEqual([
      expect.stringMatching(new RegExp(`^edict/layers: .*${message.source}`)),
    ]);
  });

  it.each([
    ['apps/cli/src/lint-fixture.ts', "import { imported } from '@edict/admission-controller';"],
    ['apps/background-controller/src/lint-fixture.ts', "import { imported } from '@edict/reports-controller';"],
    ['libs/reports/src/lint-fixture.spec.ts', "import { imported } from '@edict/launcher/testing';"],
  ])('rejects importing an app outside the launcher, tests and bench: %s', { timeout: 60_000 }, async (path, line) => {
    expect(await layerProblems(path, line)).toEqual([
      expect.stringMatching(/^edict\/layers: .* may not import the app .*only apps\/launcher, test, bench import apps/),
    ]);
  });

  it(
    'rejects testing entries outside specs and testing code, and libs missing from the table',
    { timeout: 60_000 },
    async () => {
      expect(
        await layerProblems('libs/policy/src/lint-fixture.ts', "import { imported } from '@edict/kube/testing';"),
      ).toEqual([expect.stringMatching(/^edict\/layers: '@edict\/kube\/testing' is a testing entry/)]);
      expect(
        await layerProblems('libs/policy/src/lint-fixture.ts', "import { imported } from '@edict/nowhere';"),
      ).toEqual([expect.stringMatching(/^edict\/layers: .*nowhere is not in the layer table/)]);
      expect(
        await layerProblems('libs/nowhere/src/lint-fixture.ts', "import { imported } from '@edict/kube';"),
      ).toEqual([expect.stringMatching(/^edict\/layers: libs\/nowhere is not in the layer table/)]);
    },
  );

  it.each([
    ['libs/policy/src/lint-fixture.ts', "import { imported } from '@edict/engine';"], // through admission
    ['libs/reports/src/lint-fixture.ts', "import { imported } from '@edict/leader';"], // through policy
    ['libs/kube/src/lint-fixture.spec.ts', "import { imported } from '@edict/apiserver';"], // the in-memory cluster
    ['libs/policy/src/testing/lint-fixture.ts', "import { imported } from '@edict/kube/testing';"],
    ['libs/engine/src/lint-fixture.spec.ts', "import { imported } from '@edict/engine/testing';"],
    ['apps/launcher/src/lint-fixture.ts', "import { imported } from '@edict/admission-controller';"],
    ['apps/cli/src/lint-fixture.ts', "import { imported } from '@edict/kyverno-test';"],
    ['test/e2e-conformance/lint-fixture.ts', "import { imported } from '@edict/cli';"],
    ['bench/lint-fixture.ts', "import { imported } from '@edict/background-controller';"],
  ])('allows %s: %s', { timeout: 60_000 }, async (path, line) => {
    expect(await layerProblems(path, line)).toEqual([]);
  });
});
