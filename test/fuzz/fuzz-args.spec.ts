import { describe, expect, it } from 'vitest';
import { FUZZ_USAGE, parseFuzzArgs } from './fuzz-args';

describe("npm run fuzz's command line", () => {
  it('asks for help with --help or -h, whatever else is given', () => {
    expect(parseFuzzArgs(['--help'])).toEqual({ help: true });
    expect(parseFuzzArgs(['--runs', '5', '-h'])).toEqual({ help: true });
    expect(FUZZ_USAGE).toMatch(/^Usage: npm run fuzz -- \[--seed N\] \[--runs N\]/);
  });

  it('reads --seed and --runs, in both spellings', () => {
    expect(parseFuzzArgs([])).toEqual({ help: false });
    expect(parseFuzzArgs(['--seed', '42', '--runs=1000'])).toEqual({ help: false, seed: 42, runs: 1000 });
  });

  it('reads --only with a property name and refuses any other, listing the names', () => {
    expect(parseFuzzArgs(['--only', 'isolation'])).toEqual({ help: false, only: 'isolation' });
    expect(() => parseFuzzArgs(['--only', 'isolaton'])).toThrow(
      "npm run fuzz: --only takes one of wellFormed, malformed, policyWebhook, engine, isolation, got 'isolaton'",
    );
  });

  it('refuses unknown flags, stray words and bad numbers, naming them', () => {
    expect(() => parseFuzzArgs(['--rnus', '5'])).toThrow(/npm run fuzz: Unknown option '--rnus'/);
    expect(() => parseFuzzArgs(['extra'])).toThrow(/npm run fuzz: .*'extra'/);
    expect(() => parseFuzzArgs(['--runs=-1'])).toThrow("npm run fuzz: --runs takes a non-negative integer, got '-1'");
    expect(() => parseFuzzArgs(['--seed', '1e3'])).toThrow("--seed takes a non-negative integer, got '1e3'");
    expect(() => parseFuzzArgs(['--runs'])).toThrow(/npm run fuzz: Option '--runs <value>' argument missing/);
  });
});
