/** `edict migrate`: Kyverno's `kyverno migrate` (`cmd/cli/kubectl-kyverno/commands/migrate`). */
import type { Command } from 'commander';
import { errorMessage } from '@edict/foundation';
import type { CommandIO } from '../io';

/** Cobra's string-slice flags: repeatable, each value split on commas. */
const slice = (value: string, previous: string[] = []) => [...previous, ...value.split(',')];

export function registerMigrateCommand(program: Command, io: CommandIO, result: { code: number }): void {
  program
    .command('migrate')
    .description('Migrate one or more resources to the stored version.')
    .argument('[args...]')
    .option('--kubeconfig <file>', 'path to kubeconfig file with authorization and master location information')
    .option('--context <name>', 'The name of the kubeconfig context to use')
    .option('--resource <crds>', 'The resource to migrate', slice, [])
    .addHelpText(
      'after',
      '\nExample:\n  # Migrate policy exceptions\n  edict migrate --resource policyexceptions.kyverno.io\n',
    )
    .action(async (args: string[], options: { kubeconfig?: string; context?: string; resource: string[] }) => {
      if (args.length > 0) {
        io.err(`Error: unknown command "${args[0]}" for "edict migrate"\n`);
        result.code = 1;
        return;
      }
      try {
        const { migrate } = await import('./migrate');
        await migrate({ ...options, resources: options.resource }, (line) => io.out(`${line}\n`));
      } catch (error) {
        io.err(`Error: ${errorMessage(error)}\n`);
        result.code = 1;
      }
    });
}
