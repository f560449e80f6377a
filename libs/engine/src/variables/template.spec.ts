import { describe, expect, it } from 'vitest';
import { getTemplate, parseTemplate } from './template';

describe('parseTemplate', () => {
  it('treats strings without {{ as plain', () => {
    expect(parseTemplate('no variables { here }')).toEqual({ kind: 'plain' });
  });

  it('splits text and variables and marks a lone variable as single', () => {
    const lone = parseTemplate('{{ request.object }}');
    expect(lone.kind === 'template' && lone.single?.source).toBe('{{ request.object }}');
    const mixed = parseTemplate('name-{{ a }}-{{b}}');
    expect(mixed.kind === 'template' && mixed.single).toBeUndefined();
    expect(mixed.kind === 'template' && mixed.parts.map((part) => part.kind)).toEqual([
      'text',
      'variable',
      'text',
      'variable',
    ]);
  });

  it('nests variables inside variables', () => {
    const template = parseTemplate('{{ a.{{ b }}.c }}');
    expect(template.kind).toBe('template');
    if (template.kind !== 'template') return;
    const content = template.single?.content ?? [];
    expect(content.map((part) => part.kind)).toEqual(['text', 'variable', 'text']);
  });

  it('keeps single-level brace groups (JMESPath hashes, literals) inside a variable', () => {
    const template = parseTemplate('{{ {name: metadata.name} }}');
    expect(template.kind === 'template' && template.single?.content).toEqual([
      { kind: 'text', text: ' {name: metadata.name} ' },
    ]);
  });

  it('recognises escapes and drops their backslash', () => {
    const template = parseTemplate('a \\{{ b }} c');
    expect(template.kind === 'template' && template.parts).toEqual([
      { kind: 'text', text: 'a ' },
      { kind: 'escaped', content: [{ kind: 'text', text: ' b ' }] },
      { kind: 'text', text: ' c' },
    ]);
  });

  it('marks only-variable strings', () => {
    const template = parseTemplate('{{a}}{{b}}');
    expect(template.kind === 'template' && template.onlyVariables).toBe(true);
  });

  it.each(['{{ unclosed', '{{a}b}}', '{{{a}}}', 'x {{ a \\{{b}} }}', '{{ {a: {b: 1}} }}'])(
    'sends shapes where regex scanning may differ to the re-scan path: %s',
    (source) => {
      expect(parseTemplate(source).kind).toBe('irregular');
    },
  );

  it('caches parsed templates by source', () => {
    expect(getTemplate('cached {{ x }}')).toBe(getTemplate('cached {{ x }}'));
  });
});
