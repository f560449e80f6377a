/**
 * `npm run fuzz`'s command line: `--seed N`, `--runs N` (also `--seed=N`), `--only NAME`, `--help`.
 * Anything else is refused with a message naming it, before any run starts.
 */
import { parseArgs } from 'node:util';

/** The properties `--only` can name. */
export const FUZZ_PROPERTIES = ['wellFormed', 'malformed', 'policyWebhook', 'engine', 'isolation'] as const;
export type FuzzPropertyName = (typeof FUZZ_PROPERTIES)[number];

export const FUZZ_USAGE = `Usage: npm run fuzz -- [--seed N] [--runs N] [--only NAME]

Runs every fuzz property at length against the real controller, engine and (tenant isolation) the
embedded cluster, in-process.

Options:
  --seed N     fast-check seed (default: from the clock; printed so a run can be replayed)
  --runs N     cases in all, shared among the properties (default: 100000)
  --only NAME  one property alone, with every case of --runs: ${FUZZ_PROPERTIES.join(', ')}
  --help       print this help and exit`;

export type FuzzArgs =
  | { readonly help: true }
  | { readonly help: false; readonly seed?: number; readonly runs?: number; readonly only?: FuzzPropertyName };

/** A command line `npm run fuzz` cannot run with; the message names what is wrong. */
export class FuzzUsageError extends Error {}

export function parseFuzzArgs(argv: readonly string[]): FuzzArgs {
  let values: { seed?: string; runs?: string; only?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        seed: { type: 'string' },
        runs: { type: 'string' },
        only: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new FuzzUsageError(`npm run fuzz: ${(error as Error).message}`);
  }
  if (values.help) return { help: true };
  return {
    help: false,
    ...(values.seed !== undefined ? { seed: nonNegativeInteger('seed', values.seed) } : {}),
    ...(values.runs !== undefined ? { runs: nonNegativeInteger('runs', values.runs) } : {}),
    ...(values.only !== undefined ? { only: propertyName(values.only) } : {}),
  };
}

function propertyName(text: string): FuzzPropertyName {
  const name = FUZZ_PROPERTIES.find((known) => known === text);
  if (name === undefined) {
    throw new FuzzUsageError(`npm run fuzz: --only takes one of ${FUZZ_PROPERTIES.join(', ')}, got '${text}'`);
  }
  return name;
}

function nonNegativeInteger(name: string, text: string): number {
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value))
    throw new FuzzUsageError(`npm run fuzz: --${name} takes a non-negative integer, got '${text}'`);
  return value;
}
