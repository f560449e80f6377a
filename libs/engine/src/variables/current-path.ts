/**
 * `{{@}}` means "the value at the same place in the resource". Kyverno turns the substitution path
 * (e.g. `/validate/pattern/spec/containers/0/image`) into JMESPath: it drops everything up to a
 * `foreach` element, then the first two elements (`validate/pattern`, `mutate/patchStrategicMerge`),
 * and prefixes `target` (mutate existing) or `request.object`.
 */
export function currentValueExpression(path: string, prefix: readonly string[]): string {
  let components = parsePath(path);
  components = components.slice(components.indexOf('foreach') + 1);
  components = 2 > components.length - 1 ? [] : components.slice(2);
  return toJmesPath([...prefix, ...components]);
}

/**
 * Splits a substitution path into components. Keys containing `/` appear escaped as `\/`
 * (that is how the traversal writes them); double quotes group characters and are dropped.
 */
export function parsePath(path: string): string[] {
  const components: string[] = [];
  let current = '';
  let escaped = false;
  let quoted = false;
  for (const char of path) {
    if (escaped) {
      current += char;
      escaped = false;
    } else if (char === '\\') {
      escaped = true;
    } else if (char === '"') {
      quoted = !quoted;
    } else if (char === '/' && !quoted) {
      if (current !== '') components.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  if (current !== '') components.push(current);
  return components;
}

const INDEX = /^[0-9]+$/;
const IDENTIFIER = /^[A-Za-z_][)0-9A-Za-z_]*$/;
const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

/** Pointer components as a JMESPath expression: indexes as `[n]`, odd keys as quoted identifiers. */
export function toJmesPath(components: readonly string[]): string {
  let out = '';
  for (const component of components) {
    if (INDEX.test(component)) {
      out += `[${component}]`;
      continue;
    }
    if (out !== '') out += '.';
    out += IDENTIFIER.test(component) ? component : quoteIdentifier(component);
  }
  return out;
}

function quoteIdentifier(component: string): string {
  let out = '"';
  for (const char of component) {
    const code = char.codePointAt(0) as number;
    if (code >= 0x20 && char !== '"' && char !== '\\') out += char;
    else out += SHORT_ESCAPES[char] ?? `\\u${code.toString(16).padStart(4, '0')}`;
  }
  return `${out}"`;
}
