import { Command, type Option } from 'commander';
import { setMaxFileSize } from '@edict/kyverno-test';
import type { CommandIO } from '../io';
import { functionsCommand } from './function';
import { parseCommand } from './parse';
import { queryCommand } from './query';

const DESCRIPTION = 'Provides a command-line interface to JMESPath, enhanced with Kyverno specific custom functions.';

/** Commander collects repeated and comma-separated values, as Kyverno's string-slice flags do. */
const collect = (value: string, previous: string[] = []) => [
  ...previous,
  ...value.split(',').filter((item) => item !== ''),
];

/** Runs a jp subcommand: Kyverno prints `Error: <message>` and exits 1 on any failure. */
async function run(io: CommandIO, result: { code: number }, action: () => Promise<void> | void): Promise<void> {
  try {
    await action();
    result.code = 0;
  } catch (error) {
    io.err(`Error: ${(error as Error).message}\n`);
    result.code = 1;
  }
}

/**
 * `edict jp {query,parse,function}`: Kyverno's `kyverno jp`, on Edict's JMESPath (the engine's
 * parser, functions and evaluation limits). `maxFileSize` is the CLI's `--max-file-size` option.
 */
export function registerJpCommand(
  program: Command,
  io: CommandIO,
  result: { code: number },
  maxFileSize: () => Option,
): Command {
  const jp = program
    .command('jp')
    .summary(DESCRIPTION)
    .description(DESCRIPTION)
    .addHelpText(
      'after',
      "\nExamples:\n  # List functions\n  edict jp function\n\n  # Evaluate query\n  edict jp query -i object.yaml 'request.object.metadata.name | truncate(@, `9`)'\n\n  # Parse expression\n  edict jp parse 'request.object.metadata.name | truncate(@, `9`)'\n",
    )
    .action(() => {
      jp.outputHelp();
    });

  jp.command('function')
    .summary('Provides function informations.')
    .description('Provides function informations.')
    .usage('[function_name]...')
    .argument('[names...]', 'functions to describe (default: all)')
    .addHelpText(
      'after',
      '\nExamples:\n  # List functions\n  edict jp function\n\n  # Get function infos\n  edict jp function truncate\n',
    )
    .action((names: string[]) => run(io, result, () => io.out(functionsCommand(names))));

  jp.command('parse')
    .summary('Parses jmespath expression and shows corresponding AST.')
    .description('Parses jmespath expression and shows corresponding AST.')
    .usage('[-f file|expression]...')
    .argument('[expressions...]', 'expressions to parse (default: read from stdin)')
    .option('-f, --file <files>', 'Read input from a JSON or YAML file instead of stdin', collect, [])
    .addOption(maxFileSize())
    .addHelpText(
      'after',
      "\nExamples:\n  # Parse expression\n  edict jp parse 'request.object.metadata.name | truncate(@, `9`)'\n\n  # Parse expression from a file\n  edict jp parse -f my-file\n\n  # Parse expression from stdin\n  edict jp parse\n\n  # Parse multiple expressionxs\n  edict jp parse -f my-file1 -f my-file-2 'request.object.metadata.name | truncate(@, `9`)'\n\n  # Cat into\n  cat my-file | edict jp parse\n",
    )
    .action((expressions: string[], options: { file: string[]; maxFileSize: number }) =>
      run(io, result, () => {
        setMaxFileSize(options.maxFileSize);
        return parseCommand(expressions, options.file, io);
      }),
    );

  jp.command('query')
    .summary(DESCRIPTION)
    .description(DESCRIPTION)
    .usage('[-i input] [-q query|query]...')
    .argument('[queries...]', 'JMESPath expressions to evaluate')
    .option('-c, --compact', 'Produce compact JSON output that omits non essential whitespace', false)
    .option('-u, --unquoted', 'If the final result is a string, it will be printed without quotes', false)
    .option('-q, --query <files>', 'Read JMESPath expression from the specified file', collect, [])
    .option('-i, --input <file>', 'Read input from a JSON or YAML file instead of stdin')
    .addOption(maxFileSize())
    .addHelpText(
      'after',
      "\nExamples:\n  # Evaluate query\n  edict jp query -i object.yaml 'request.object.metadata.name | truncate(@, `9`)'\n\n  # Evaluate query\n  edict jp query -i object.yaml -q query-file\n\n  # Evaluate multiple queries\n  edict jp query -i object.yaml -q query-file-1 -q query-file-2 'request.object.metadata.name | truncate(@, `9`)'\n\n  # Cat query into\n  cat query-file | edict jp query -i object.yaml\n\n  # Cat object into\n  cat object.yaml | edict jp query -q query-file\n",
    )
    .action(
      (
        queries: string[],
        options: { compact: boolean; unquoted: boolean; query: string[]; input?: string; maxFileSize: number },
      ) =>
        run(io, result, () => {
          setMaxFileSize(options.maxFileSize);
          return queryCommand(queries, options, io);
        }),
    );
  return jp;
}
