import { resolve } from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

// The project's own eslint.config.mjs on small in-memory sources, placed where the rules apply.
const ROOT = resolve(__dirname, '../..');
let eslint: ESLint;

async function problems(path: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: resolve(ROOT, path) });
  return (result?.messages ?? []).map((message) => `${message.ruleId}: ${message.message}`);
}

beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT });
});

describe('purity (no-restricted-imports in libs/engine and the libs below it)', () => {
  const PURE = [
    'libs/engine',
    'libs/foundation',
    'libs/cel',
    'libs/jmespath',
    'libs/native-policies',
    'libs/cel-policies',
    'libs/image-verify',
  ];
  const IMPURE = [
    ["import { Injectable } from '@nestjs/common';", 'Injectable'],
    ["import { readFileSync } from 'node:fs';", 'readFileSync'],
    ["import { request } from 'http';", 'request'],
    ["import { spawn } from 'node:child_process';", 'spawn'],
    ["import { connect } from 'node:net';", 'connect'],
    ["import { KubeConfig } from '@kubernetes/client-node';", 'KubeConfig'],
    ["import { trace } from '@opentelemetry/api';", 'trace'],
  ];
  it.each(PURE.flatMap((lib) => IMPURE.map(([line, name]) => [lib, line, name])))(
    '%s rejects %s',
    { timeout: 60_000 },
    async (lib, line, name) => {
      const found = await problems(`${lib}/src/lint-fixture.ts`, `${line}\nexport const used = ${name};\n`);
      expect(found).toEqual([expect.stringMatching(new RegExp(`^no-restricted-imports: .*${lib} is pure TypeScript`))]);
    },
  );

  it.each(PURE)('%s allows pure modules, net address checks, and I/O in specs', { timeout: 60_000 }, async (lib) => {
    const pure =
      "import { isIP } from 'node:net';\nimport { createHash } from 'node:crypto';\nexport const used = [isIP, createHash];\n";
    expect(await problems(`${lib}/src/lint-fixture.ts`, pure)).toEqual([]);
    const spec = "import { readFileSync } from 'node:fs';\nexport const used = readFileSync;\n";
    expect(await problems(`${lib}/src/lint-fixture.spec.ts`, spec)).toEqual([]);
  });

  it('leaves the other libs free to do I/O', { timeout: 60_000 }, async () => {
    const io = "import { readFileSync } from 'node:fs';\nexport const used = readFileSync;\n";
    expect(await problems('libs/kube/src/lint-fixture.ts', io)).toEqual([]);
  });

  it('lets libs/cel and libs/jmespath import the foundation', { timeout: 60_000 }, async () => {
    const line = "import { isObject } from '@edict/foundation';\nexport const used = isObject;\n";
    expect(await problems('libs/cel/src/lint-fixture.ts', line)).toEqual([]);
    expect(await problems('libs/jmespath/src/lint-fixture.ts', line)).toEqual([]);
  });
});

describe('barrel-only imports across libs (edict/lib-boundaries)', () => {
  it('rejects a path inside another lib, by alias or relative path', { timeout: 60_000 }, async () => {
    const deepAlias = "import { goJson } from '@edict/foundation/go/json';\nexport const used = goJson;\n";
    expect(await problems('libs/reports/src/lint-fixture.ts', deepAlias)).toEqual([
      expect.stringMatching(/^edict\/lib-boundaries: '@edict\/foundation\/go\/json' reaches inside @edict\/foundation/),
    ]);
    const relativePath = "export { goJson } from '../../foundation/src/go/json';\n";
    expect(await problems('libs/reports/src/lint-fixture.ts', relativePath)).toEqual([
      expect.stringMatching(/^edict\/lib-boundaries: .* reaches from libs\/reports into libs\/foundation by path/),
    ]);
  });

  it('allows barrels, testing entries and relative paths within a lib', { timeout: 60_000 }, async () => {
    const fine = [
      "import { goJson } from '@edict/foundation';",
      "import { jp } from '@edict/jmespath/testing';",
      "import { resourceHash } from './resource-hash';",
      'export const used = [goJson, jp, resourceHash];',
    ].join('\n');
    // Testing entries are for specs and testing code (edict/layers).
    expect(await problems('libs/reports/src/report/lint-fixture.spec.ts', fine)).toEqual([]);
  });

  it('allows the other entries tsconfig.json declares, not paths beside them', { timeout: 60_000 }, async () => {
    const declared =
      "import { KubeHttpClient } from '@edict/kube/client';\nimport { DiscoveryResolver } from '@edict/kube/discovery';\nexport const used = [KubeHttpClient, DiscoveryResolver];\n";
    expect(await problems('apps/cli/src/lint-fixture.ts', declared)).toEqual([]);
    const inside =
      "import { KubeResources } from '@edict/kube/http/kube-resources';\nexport const used = KubeResources;\n";
    expect(await problems('apps/cli/src/lint-fixture.ts', inside)).toEqual([
      expect.stringMatching(/^edict\/lib-boundaries: '@edict\/kube\/http\/kube-resources' reaches inside @edict\/kube/),
    ]);
  });
});
