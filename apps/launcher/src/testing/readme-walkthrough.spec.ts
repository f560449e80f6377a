import { describe, expect, it } from 'vitest';
import { missingLines, parseSteps, splitOutput, walkthroughScript } from './readme-walkthrough';

describe('the README walkthrough parser', () => {
  const block = [
    'export A=1',
    'kubectl run web',
    '# Error from server: denied',
    '#',
    '# ...',
    '#   rule: failed',
    "kubectl apply -f - <<'EOF'",
    'kind: X',
    '# not a comment inside a heredoc',
    'EOF',
    '# x created',
    '',
  ].join('\n');

  it('splits commands (heredocs included) from the output lines shown under them', () => {
    expect(parseSteps(block)).toEqual([
      { command: 'export A=1', expected: [] },
      { command: 'kubectl run web', expected: ['Error from server: denied', 'rule: failed'] },
      {
        command: "kubectl apply -f - <<'EOF'\nkind: X\n# not a comment inside a heredoc\nEOF",
        expected: ['x created'],
      },
    ]);
  });

  it('joins lines continued by a backslash into one command', () => {
    expect(parseSteps('edict apply p.yaml \\\n  --resource r.yaml   # a note\n# pass: 1\nls')).toEqual([
      { command: 'edict apply p.yaml \\\n  --resource r.yaml   # a note', expected: ['pass: 1'] },
      { command: 'ls', expected: [] },
    ]);
  });

  it('refuses output before any command and an unclosed heredoc', () => {
    expect(() => parseSteps('# orphan\nls')).toThrow('output before any command');
    expect(() => parseSteps("cat <<'EOF'\nx")).toThrow('heredoc EOF is not closed');
  });

  it('marks each step in the script and splits the output back', () => {
    const steps = parseSteps('echo a\nfalse');
    expect(walkthroughScript(steps)).toBe(
      `exec 2>&1\necho '@@step 0@@'\necho a\necho "@@exit $?@@"\necho '@@step 1@@'\nfalse\necho "@@exit $?@@"\n`,
    );
    expect(splitOutput('@@step 0@@\n a \n@@exit 0@@\n@@step 1@@\n@@exit 1@@\n', 2)).toEqual([
      { output: ['a', ''], exitCode: 0 },
      { output: [''], exitCode: 1 },
    ]);
    expect(() => splitOutput('@@step 0@@\n', 1)).toThrow('step 0 did not finish');
  });

  it('finds expected lines in order, each contained in a printed line', () => {
    expect(missingLines(['b', 'd'], ['a b c', 'd'])).toEqual([]);
    expect(missingLines(['d', 'b'], ['a b c', 'd'])).toEqual(['b']);
  });

  it('lets runs of spaces match any run, and <word> placeholders any one word', () => {
    const printed = [
      'NAME                                   KIND   NAME   PASS',
      '53753c7c-adbd   Pod    docs   3      1s',
    ];
    expect(missingLines(['NAME  KIND NAME PASS', '<uid> Pod docs 3 <age>'], printed)).toEqual([]);
    expect(missingLines(['<uid> Pod web 3'], printed)).toEqual(['<uid> Pod web 3']);
    expect(missingLines(['<uid> Pod docs 3 <age> <more>'], printed)).toEqual(['<uid> Pod docs 3 <age> <more>']);
    // Everything else is literal, regular-expression characters included.
    expect(missingLines(['a.c (1)'], ['abc (1)'])).toEqual(['a.c (1)']);
    expect(missingLines(['a.c (1)'], ['a.c (1)'])).toEqual([]);
  });
});
