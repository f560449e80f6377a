import { describe, expect, it } from 'vitest';
import { importCycles, importGraph, readSources } from './import-graph';

// No two files of apps/ and libs/ import each other, directly or around a longer loop.
const ALIASES = new Map([['@edict/thing', 'libs/thing/src']]);

function cyclesOf(files: Record<string, string>): string[] {
  return importCycles(importGraph(new Map(Object.entries(files)), ALIASES)).map((cycle) => cycle.join(' -> '));
}

describe('import cycles between files', () => {
  it('finds a planted cycle: two files, a longer loop, a loop through a barrel, type-only imports', () => {
    expect(
      cyclesOf({
        'libs/thing/src/a.ts': "import { b } from './b';",
        'libs/thing/src/b.ts': "import type { A } from './a';\nexport const b = 1;",
        'libs/thing/src/index.ts': "export { c } from './deep/c';",
        'libs/thing/src/deep/c.ts': "import { d } from '../d';\nexport const c = d;",
        'libs/thing/src/d.ts': "import { c } from '@edict/thing';\nexport * from './deep/e';",
        'libs/thing/src/deep/e.ts': "import { f } from './f';",
        'libs/thing/src/deep/f.ts': "import { e } from './e';",
        'libs/thing/src/g.ts': "import { g } from './g';",
      }),
    ).toEqual([
      'libs/thing/src/a.ts -> libs/thing/src/b.ts -> libs/thing/src/a.ts',
      'libs/thing/src/d.ts -> libs/thing/src/index.ts -> libs/thing/src/deep/c.ts -> libs/thing/src/d.ts',
      'libs/thing/src/deep/e.ts -> libs/thing/src/deep/f.ts -> libs/thing/src/deep/e.ts',
      'libs/thing/src/g.ts -> libs/thing/src/g.ts',
    ]);
  });

  it('does not count a chain, a dynamic import or packages', () => {
    expect(
      cyclesOf({
        'libs/thing/src/a.ts': "import { b } from './b';\nimport { x } from 'yaml';",
        'libs/thing/src/b.ts': "import { c } from './c';\nexport const load = () => import('./a');",
        'libs/thing/src/c.ts': "import { a } from 'a';",
      }),
    ).toEqual([]);
  });

  it('finds none in apps/ and libs/', { timeout: 60_000 }, () => {
    const cycles = importCycles(importGraph(readSources(['apps', 'libs']))).map((cycle) => cycle.join(' -> '));
    expect(cycles).toEqual([]);
  });
});
