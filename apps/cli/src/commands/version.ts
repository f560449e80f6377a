import { readFileSync, realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { CommandIO } from './io';

/**
 * The package's version, read from the package.json three levels above the running script
 * (`dist/apps/cli/main.js`), in a checkout as after `npm install -g`.
 */
export function packageVersion(script = process.argv[1]): string {
  try {
    const file = resolve(dirname(realpathSync(script ?? '')), '../../../package.json');
    const version = (JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown }).version;
    return typeof version === 'string' ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** `edict version`: Kyverno's `Version:` line. */
export function versionCommand(io: CommandIO, version = packageVersion()): number {
  io.out(`Version: ${version}\n`);
  return 0;
}
