import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_JOBS, DEFAULT_SLEEP_SCALE, DEFAULT_TIMEOUT_SCALE, LOCAL_DIR, parseArgs } from './args';

const root = mkdtempSync(join(tmpdir(), 'e2e-args-'));
const suite = join(root, 'suite');
mkdirSync(join(suite, 'validate', 'x'), { recursive: true });
mkdirSync(join(root, 'project'));
mkdirSync(join(root, LOCAL_DIR, 'cosign', 'keyed'), { recursive: true });
const env = { EDICT_E2E_DIR: suite };

describe('e2e-conformance arguments', () => {
  it('runs the whole suite as a table with the default scales', () => {
    expect(parseArgs([], env, root)).toEqual({
      suiteDir: suite,
      paths: [],
      localDir: join(root, LOCAL_DIR),
      localPaths: ['.'],
      whole: true,
      output: 'table',
      timeoutScale: DEFAULT_TIMEOUT_SCALE,
      sleepScale: DEFAULT_SLEEP_SCALE,
      jobs: DEFAULT_JOBS,
      checkFloor: false,
    });
  });

  it('takes paths relative to the suite or to the current folder, kept relative to the suite', () => {
    const args = parseArgs(['validate/x', join(suite, 'validate'), '--output', 'junit'], env, join(root, 'project'));
    expect(args.paths).toEqual(['validate/x', 'validate']);
    expect(args.localPaths).toEqual([]);
    expect(args.output).toBe('junit');
  });

  it('takes paths of the local twins, kept relative to their folder; naming only those runs no suite test', () => {
    const args = parseArgs([`${LOCAL_DIR}/cosign/keyed`, LOCAL_DIR], env, root);
    expect(args.paths).toEqual([]);
    expect(args.localPaths).toEqual(['cosign/keyed', '.']);
  });

  it('refuses what it cannot run, naming the argument', () => {
    expect(() => parseArgs(['nope'], env, root)).toThrow('nope: no such folder in the suite');
    expect(() => parseArgs(['project'], env, root)).toThrow('project: not inside the suite folder');
    expect(() => parseArgs([LOCAL_DIR, '--check-floor'], env, root)).toThrow('--check-floor needs the whole suite');
    expect(() => parseArgs(['--output', 'xml'], env, root)).toThrow('--output takes table, json or junit, not xml');
    expect(() => parseArgs(['--timeout-scale', '0'], env, root)).toThrow('--timeout-scale takes a number above 0');
    expect(() => parseArgs(['--jobs', '0'], env, root)).toThrow('--jobs takes a whole number from 1 to 16');
    expect(() => parseArgs(['--fast'], env, root)).toThrow('unknown option --fast');
    expect(() => parseArgs(['validate', '--check-floor'], env, root)).toThrow('--check-floor needs the whole suite');
    expect(() => parseArgs([], { EDICT_E2E_DIR: join(root, 'missing') }, root)).toThrow('the chainsaw suite is not at');
  });
});
