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

describe('engine purity (no-restricted-imports in libs/engine)', () => {
  it.each([
    ["import { Injectable } from '@nestjs/common';", 'Injectable'],
    ["import { readFileSync } from 'node:fs';", 'readFileSync'],
    ["import { request } from 'http';", 'request'],
    ["import { spawn } from 'node:child_process';", 'spawn'],
    ["import { connect } from 'node:net';", 'connect'],
    ["import { KubeConfig } from '@kubernetes/client-node';", 'KubeConfig'],
  ])('rejects %s', { timeout: 60_000 }, async (line, name) => {
    const found = await problems('libs/engine/src/lint-fixture.ts', `${line}\nexport const used = ${name};\n`);
    expect(found).toEqual([expect.stringMatching(/^no-restricted-imports: .*libs\/engine is pure TypeScript/)]);
  });

  it('allows pure modules, net address checks, and I/O in specs', { timeout: 60_000 }, async () => {
    const pure =
      "import { isIP } from 'node:net';\nimport { createHash } from 'node:crypto';\nexport const used = [isIP, createHash];\n";
    expect(await problems('libs/engine/src/lint-fixture.ts', pure)).toEqual([]);
    const spec = "import { readFileSync } from 'node:fs';\nexport const used = readFileSync;\n";
    expect(await problems('libs/engine/src/lint-fixture.spec.ts', spec)).toEqual([]);
    expect(await problems('libs/kube/src/lint-fixture.ts', spec)).toEqual([]);
  });
});

describe('barrel-only imports across libs (edict/lib-boundaries)', () => {
  it('rejects a path inside another lib, by alias or relative path', { timeout: 60_000 }, async () => {
    const deepAlias = "import { goJson } from '@edict/engine/go/json';\nexport const used = goJson;\n";
    expect(await problems('libs/reports/src/lint-fixture.ts', deepAlias)).toEqual([
      expect.stringMatching(/^edict\/lib-boundaries: '@edict\/engine\/go\/json' reaches inside @edict\/engine/),
    ]);
    const relativePath = "export { goJson } from '../../engine/src/go/json';\n";
    expect(await problems('libs/reports/src/lint-fixture.ts', relativePath)).toEqual([
      expect.stringMatching(/^edict\/lib-boundaries: .* reaches from libs\/reports into libs\/engine by path/),
    ]);
  });

  it('allows barrels, testing entries and relative paths within a lib', { timeout: 60_000 }, async () => {
    const fine = [
      "import { goJson } from '@edict/engine';",
      "import { jp } from '@edict/engine/testing';",
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
