import { CommanderError } from 'commander';
import { processIO } from './commands/io';
import { buildProgram } from './program';
import { cliEngineFactory, cliImageVerification } from './registry-access';
import { errorMessage } from '@edict/foundation';

/** Runs the CLI; every failure ends as a message and an exit code, never a stack trace. */
async function main(argv: string[]): Promise<number> {
  const result = { code: 0 };
  try {
    await buildProgram(processIO, result, cliEngineFactory(cliImageVerification())).parseAsync(argv);
    return result.code;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    process.stderr.write(`Error: ${errorMessage(error)}\n`);
    return 2;
  }
}

process.on('unhandledRejection', (reason) => {
  process.stderr.write(`Error: ${errorMessage(reason)}\n`);
  process.exit(2);
});

void main(process.argv).then((code) => {
  process.exitCode = code;
});
