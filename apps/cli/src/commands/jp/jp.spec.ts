/** `edict jp {query,parse,function}` against fixtures, compared with what Kyverno's `kyverno jp` prints. */
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_MAX_FILE_SIZE, setMaxFileSize } from '@edict/kyverno-test';
import { writeTree } from '@edict/kyverno-test/testing';
import { runCli } from '../../testing/run-cli';
import { standardInput } from './input';

afterEach(() => {
  vi.restoreAllMocks();
  setMaxFileSize(DEFAULT_MAX_FILE_SIZE);
});

const pod =
  'request:\n  object:\n    metadata:\n      name: very-long-pod-name\n      labels: {app: web, tier: "<1>"}\n';
const dir = writeTree({
  'object.yaml': pod,
  'object.json': JSON.stringify({ a: { b: [1, 2.5, 'x'] } }),
  'name.jmespath': 'request.object.metadata.name | truncate(@, `9`)',
  'labels.jmespath': 'request.object.metadata.labels',
  'bad.yaml': 'a: [1, 2\n',
});
const at = (name: string) => join(dir, name);
const piped = (...texts: string[]) => {
  const spy = vi.spyOn(standardInput, 'read');
  for (const text of texts) spy.mockResolvedValueOnce(text);
  return spy;
};

describe('edict jp query', () => {
  it('prints "# <query>" and the result as indented JSON, Go-sorted and HTML-safe', async () => {
    const run = await runCli(['jp', 'query', '-i', at('object.yaml'), 'request.object.metadata.labels']);
    expect(run).toEqual({
      out: '# request.object.metadata.labels\n{\n  "app": "web",\n  "tier": "\\u003c1\\u003e"\n}\n',
      err: '',
      code: 0,
    });
  });

  it('runs argument queries, then query files, in order; --compact and --unquoted', async () => {
    const run = await runCli([
      'jp',
      'query',
      '-i',
      at('object.json'),
      '-q',
      at('name.jmespath'),
      '--compact',
      'a',
      'a.b[2]',
    ]);
    expect(run.out).toBe('# a\n{"b":[1,2.5,"x"]}\n# a.b[2]\n"x"\n');
    // The third query fails (a missing key is null through a pipe); earlier results stay printed.
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/^Error: error evaluating JMESPath expression: .*truncate\(\) expected argument 1/);
    const unquoted = await runCli(['jp', 'query', '-u', '-i', at('object.yaml'), '-q', at('name.jmespath')]);
    expect(unquoted.out).toBe('# request.object.metadata.name | truncate(@, `9`)\nvery-long\n');
  });

  it("uses Kyverno's custom functions and the standard ones", async () => {
    const run = await runCli([
      'jp',
      'query',
      '-c',
      '-i',
      at('object.yaml'),
      "[to_upper('a'), length(@), add(`1`, `2`)]",
    ]);
    expect(run.out).toBe('# [to_upper(\'a\'), length(@), add(`1`, `2`)]\n["A",1,3]\n');
  });

  it('reads a missing input or query from stdin, announcing it as Kyverno does', async () => {
    piped('{"x": [3, 1, 2]}');
    const input = await runCli(['jp', 'query', '-c', 'sort(x)']);
    expect(input.out).toBe('Reading from terminal input.\nEnter input object and hit Ctrl+D.\n# sort(x)\n[1,2,3]\n');
    piped('a.b[0]');
    const query = await runCli(['jp', 'query', '-i', at('object.json')]);
    expect(query.out).toBe('Reading from terminal input.\nEnter a jmespath expression and hit Ctrl+D.\n# a.b[0]\n1\n');
  });

  it("fails with Kyverno's messages and exit code 1", async () => {
    const cases: [string[], string][] = [
      [['jp', 'query', 'a'], 'Error: error evaluating JMESPath expression: Unknown key "a" in path\n'],
      [
        ['jp', 'query', '-i', at('missing.yaml'), 'a'],
        `Error: failed open file ${at('missing.yaml')}: open ${at('missing.yaml')}: no such file or directory\n`,
      ],
      [['jp', 'query', '-i', at('bad.yaml'), 'a'], 'Error: error parsing input json: yaml:'],
      [
        ['jp', 'query', '-i', at('object.json'), 'a[', 'a'],
        'Error: failed to compile JMESPath: a[, error: SyntaxError: ',
      ],
      [
        ['jp', 'query', '-i', at('object.json'), 'to_boolean(`"maybe"`)'],
        "Error: error evaluating JMESPath expression: JMESPath function 'to_boolean': lowercase argument must be 'true' or 'false' (provided: 'maybe')\n",
      ],
    ];
    piped('{}');
    for (const [args, message] of cases) {
      const run = await runCli(args);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.err.startsWith(message), run.err).toBe(true);
    }
  });

  it('needs a query or an input', async () => {
    const run = await runCli(['jp', 'query', '-q', '', '--compact']);
    expect(run).toMatchObject({ code: 1, err: 'Error: at least one query or input object is required\n' });
  });

  it('bounds the input file (--max-file-size) and the query length', async () => {
    const big = await runCli(['jp', 'query', '--max-file-size', '10', '-i', at('object.yaml'), 'a']);
    expect(big.code).toBe(1);
    expect(big.err).toMatch(
      /^Error: failed to read file .*object\.yaml: is \d+ bytes, over the 10 bytes limit for input files \(--max-file-size or EDICT_MAX_FILE_SIZE\)\n$/,
    );
    const long = await runCli(['jp', 'query', '-i', at('object.json'), 'a'.repeat(70_000)]);
    expect(long.err).toBe(
      'Error: argument 1: the JMESPath expression is 70000 characters long, over the 65536 limit\n',
    );
  });
});

describe('edict jp parse', () => {
  it("prints go-jmespath's AST dump", async () => {
    const run = await runCli(['jp', 'parse', 'request.object.metadata.name | truncate(@, `9`)']);
    expect(run.out).toBe(
      [
        '# request.object.metadata.name | truncate(@, `9`)',
        'ASTPipe {',
        '  children: {',
        '    ASTSubexpression {',
        '      children: {',
        '        ASTSubexpression {',
        '          children: {',
        '            ASTSubexpression {',
        '              children: {',
        '                ASTField {',
        '                  value: "request"',
        '                }',
        '                ASTField {',
        '                  value: "object"',
        '                }',
        '            }',
        '            ASTField {',
        '              value: "metadata"',
        '            }',
        '        }',
        '        ASTField {',
        '          value: "name"',
        '        }',
        '    }',
        '    ASTFunctionExpression {',
        '      value: "truncate"',
        '      children: {',
        '        ASTCurrentNode {',
        '        }',
        '        ASTLiteral {',
        '          value: 9',
        '        }',
        '    }',
        '}',
        '',
        '',
      ].join('\n'),
    );
  });

  it('covers comparators, projections, filters, literals and arithmetic', async () => {
    const run = await runCli(['jp', 'parse', "a[?b == 'x'].c[0]", '`{"k": [true, null]}` - `1`']);
    expect(run.out).toContain('ASTFilterProjection {\n  children: {\n    ASTField {\n      value: "a"\n    }\n');
    expect(run.out).toContain('    ASTComparator {\n      value: TOKEQ\n');
    expect(run.out).toContain('ASTIndexExpression {');
    expect(run.out).toContain('ASTIndex {\n');
    expect(run.out).toContain('value: TOKMinus\n');
    expect(run.out).toContain('value: map[string]interface {}{"k":[]interface {}{true, interface {}(nil)}}\n');
  });

  it('reads expressions from files (-f) after the arguments, or from stdin', async () => {
    const run = await runCli(['jp', 'parse', '-f', at('labels.jmespath'), 'a']);
    expect(run.out.indexOf('# a\n')).toBe(0);
    expect(run.out).toContain('# request.object.metadata.labels\n');
    piped('@');
    const stdin = await runCli(['jp', 'parse']);
    expect(stdin.out).toBe(
      'Reading from terminal input.\nEnter a jmespath expression and hit Ctrl+D.\n# @\nASTCurrentNode {\n}\n\n',
    );
  });

  it('reports a syntax error with the expression, exit code 1', async () => {
    const run = await runCli(['jp', 'parse', 'a[']);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/^Error: SyntaxError: .+\na\[\n$/);
    const missing = await runCli(['jp', 'parse', '-f', at('nope')]);
    expect(missing.err).toBe(`Error: failed open file ${at('nope')}: open ${at('nope')}: no such file or directory\n`);
  });
});

describe('edict jp function', () => {
  it("prints Kyverno's Name / Signature / Note blocks", async () => {
    const run = await runCli(['jp', 'function', 'truncate', 'to_upper']);
    expect(run).toEqual({
      out:
        'Name: to_upper\n  Signature: to_upper(string) string\n  Note:      takes in a string and outputs the same string with all upper-case letters\n\n' +
        'Name: truncate\n  Signature: truncate(string, number) string\n  Note:      length argument must be enclosed in backticks; ex. "{{request.object.metadata.name | truncate(@, `9`)}}"\n\n',
      err: '',
      code: 0,
    });
  });

  it('lists every function, sorted by signature (time_now before time_now_utc)', async () => {
    const run = await runCli(['jp', 'function']);
    const names = [...run.out.matchAll(/^Name: (.+)$/gm)].map((m) => m[1]);
    expect(names).toContain('regex_match');
    expect(names).toContain('sort_by');
    expect(names.indexOf('time_now')).toBe(names.indexOf('time_now_utc') - 1);
    expect(names.length).toBeGreaterThan(80);
  });

  it('has help with examples, and `edict jp` prints its help', async () => {
    const help = await runCli(['jp', 'query', '--help']);
    expect(help.out).toContain('Usage: edict jp query [-i input] [-q query|query]...');
    expect(help.out).toContain('Examples:\n  # Evaluate query\n');
    const jp = await runCli(['jp']);
    expect(jp.out).toContain('Commands:\n  function');
    expect(jp.out).toContain('Examples:\n  # List functions\n  edict jp function\n');
    expect(jp.code).toBe(0);
  });
});
