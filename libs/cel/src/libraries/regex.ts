import type { Environment } from '@marcbachmann/cel-js';
import { compileGoRegexp, errorMessage } from '@edict/foundation';
import { celError } from './errors';
import { replaced } from './replaced';
import { chargeString } from './runtime';

/**
 * Regular expressions on RE2 (linear time, Go syntax) as Kubernetes' CEL has them: `matches` and
 * Kubernetes' regex library (`find`, `findAll`).
 */
export function registerRegex(env: Environment): void {
  env.registerFunction(`string.${replaced('matches')}(string): bool`, (text: string, pattern: string) => {
    chargeString(text.length, pattern.length);
    return compile(pattern).test(text);
  });
  // CEL's global form, matches(text, pattern), on RE2 too.
  env.registerFunction('matches(string, string): bool', (text: string, pattern: string) => {
    chargeString(text.length, pattern.length);
    return compile(pattern).test(text);
  });
  env.registerFunction('string.find(string): string', (text: string, pattern: string) => {
    chargeString(text.length, pattern.length);
    const matcher = compile(pattern).matcher(text);
    return matcher.find() ? (matcher.group() ?? '') : '';
  });
  env.registerFunction('string.findAll(string): list<string>', (text: string, pattern: string) =>
    findAll(text, pattern, -1n),
  );
  env.registerFunction('string.findAll(string, int): list<string>', (text: string, pattern: string, limit: bigint) =>
    findAll(text, pattern, limit),
  );
}

function compile(pattern: string): ReturnType<typeof compileGoRegexp> {
  try {
    return compileGoRegexp(pattern);
  } catch (error) {
    throw celError(errorMessage(error));
  }
}

function findAll(text: string, pattern: string, limit: bigint): string[] {
  const out: string[] = [];
  chargeString(text.length, pattern.length);
  if (limit === 0n) return out;
  const matcher = compile(pattern).matcher(text);
  let previousEnd = -1;
  while (matcher.find()) {
    // Go skips an empty match right after the previous match.
    if (matcher.start() === matcher.end() && matcher.start() === previousEnd) continue;
    previousEnd = matcher.end();
    out.push(matcher.group() ?? '');
    if (limit > 0n && BigInt(out.length) >= limit) break;
  }
  return out;
}
