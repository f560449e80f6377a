/**
 * Every relative link of the README and docs/ leads somewhere: the file exists, and a `#fragment`
 * names a heading of the target (GitHub's anchors: lower case, punctuation dropped, spaces as `-`).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** Text outside fenced code blocks and inline code, where links are links. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsIn(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((match) => anchorOf(match[1]!)));
}

function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const match of prose(readFileSync(file, 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = match[1]!;
    if (/^[a-z]+:/i.test(target)) continue;
    const [path, fragment] = target.split('#') as [string, string | undefined];
    const resolved = path === '' ? file : resolve(dirname(file), path);
    const where = `${relative(ROOT, file)}: ${target}`;
    if (!existsSync(resolved)) broken.push(`${where} (no such file)`);
    else if (fragment !== undefined && resolved.endsWith('.md') && !anchorsIn(resolved).has(fragment)) {
      broken.push(`${where} (no such heading)`);
    }
  }
  return broken;
}

describe('links of the README and docs/', () => {
  it('lead to files and headings that exist', () => {
    const files = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))];
    expect(files.length).toBeGreaterThan(10);
    expect(files.flatMap(brokenLinks)).toEqual([]);
  });

  it("make GitHub's anchors of headings", () => {
    expect(anchorOf('Try it: watch a policy block a Pod')).toBe('try-it-watch-a-policy-block-a-pod');
    expect(anchorOf("Installing under Kyverno's names")).toBe('installing-under-kyvernos-names');
    expect(anchorOf('The background controller (`background`)')).toBe('the-background-controller-background');
  });

  it('report a missing file and a missing heading, not code or external links', () => {
    const dir = mkdtempSync(join(tmpdir(), 'edict-links-'));
    try {
      writeFileSync(join(dir, 'target.md'), '# A heading\n\n```sh\n# not a heading\n```\n');
      const probe = join(dir, 'probe.md');
      writeFileSync(
        probe,
        [
          '[ok](target.md) [ok](target.md#a-heading) [ok](#here) [web](https://example.com/x#y)',
          '[gone](missing.md) [nowhere](target.md#not-a-heading) [code](target.md#none)',
          '`[inline](missing.md)`',
          '```md\n[fenced](missing.md)\n```',
          '## Here',
        ].join('\n'),
      );
      expect(brokenLinks(probe).map((line) => line.replace(/^.*?: /, ''))).toEqual([
        'missing.md (no such file)',
        'target.md#not-a-heading (no such heading)',
        'target.md#none (no such heading)',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
