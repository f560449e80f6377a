/**
 * `edict completion bash|zsh|fish|powershell`: Kyverno's `kyverno completion` (cobra's), printing a
 * completion script for every command and flag of the program it is registered on.
 */
import type { Command } from 'commander';
import type { CommandIO } from '../io';
import { completionModel } from './completion-model';
import { completionScript, SHELLS, type Shell } from './completion-scripts';

const LOADING: Record<Shell, (program: string) => string> = {
  bash: (p) =>
    `This script depends on the 'bash-completion' package.\n\nTo load completions in your current shell session:\n\n  source <(${p} completion bash)\n\nTo load completions for every new session, execute once:\n\n  ${p} completion bash > /etc/bash_completion.d/${p}\n`,
  zsh: (p) =>
    `If shell completion is not already enabled in your environment you will need to enable it:\n\n  echo "autoload -U compinit; compinit" >> ~/.zshrc\n\nTo load completions in your current shell session:\n\n  source <(${p} completion zsh)\n\nTo load completions for every new session, execute once:\n\n  ${p} completion zsh > "\${fpath[1]}/_${p}"\n`,
  fish: (p) =>
    `To load completions in your current shell session:\n\n  ${p} completion fish | source\n\nTo load completions for every new session, execute once:\n\n  ${p} completion fish > ~/.config/fish/completions/${p}.fish\n`,
  powershell: (p) =>
    `To load completions in your current shell session:\n\n  ${p} completion powershell | Out-String | Invoke-Expression\n\nTo load completions for every new session, add the output of the above command to your powershell profile.\n`,
};

export function registerCompletionCommand(program: Command, io: CommandIO, result: { code: number }): void {
  const name = program.name();
  const completion = program
    .command('completion')
    .description(`Generate the autocompletion script for ${name} for the specified shell.`)
    .addHelpText(
      'after',
      `\nSee each sub-command's help for details on how to use the generated script.\n\nExample:\n  source <(${name} completion bash)\n`,
    )
    .argument('[shell]', `one of ${SHELLS.join(', ')}`)
    .action((shell: string | undefined) => {
      if (shell === undefined) return completion.help();
      // Cobra's answer to an unknown sub-command.
      io.err(`Error: unknown command "${shell}" for "${name} completion"\n`);
      result.code = 1;
    });

  for (const shell of SHELLS) {
    completion
      .command(shell)
      .description(`Generate the autocompletion script for the ${shell} shell.`)
      .option('--no-descriptions', 'disable completion descriptions')
      .addHelpText('after', `\n${LOADING[shell](name)}\nExample:\n  ${name} completion ${shell}\n`)
      .action((options: { descriptions: boolean }) => {
        io.out(completionScript(shell, completionModel(program), { descriptions: options.descriptions }));
        result.code = 0;
      });
  }
}
