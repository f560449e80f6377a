/**
 * The completion model of a commander program: for every command path (`edict`, `edict oci`,
 * `edict oci push`), its sub-commands, flags, the flags that take a value, and the choices of those
 * that have some. Read from the program itself when the script is printed, so every command and
 * flag registered is in the script.
 */
import type { Command, Option } from 'commander';

/** Names and flags written into scripts: plain tokens only, so nothing needs escaping. */
const TOKEN = /^-{0,2}[A-Za-z0-9][A-Za-z0-9_.:-]*$/;

export interface CompletionFlag {
  readonly names: readonly string[];
  readonly description: string;
  /** Takes a value (`--output <format>`). */
  readonly takesValue: boolean;
  readonly choices: readonly string[];
}

export interface CompletionNode {
  /** `edict oci push`. */
  readonly path: string;
  readonly subcommands: ReadonlyArray<{ readonly name: string; readonly description: string }>;
  readonly flags: readonly CompletionFlag[];
}

/** Every command of the program, depth first, the root first. */
export function completionModel(program: Command): CompletionNode[] {
  const nodes: CompletionNode[] = [];
  const visit = (command: Command, path: string) => {
    const help = command.createHelp();
    const subcommands = help
      .visibleCommands(command)
      .flatMap((sub) => [sub.name(), ...sub.aliases()].map((name) => ({ name, description: sub.description() })))
      .filter((sub) => TOKEN.test(sub.name));
    nodes.push({ path, subcommands, flags: help.visibleOptions(command).map(flagOf).filter(isUsable) });
    for (const sub of command.commands) if (TOKEN.test(sub.name())) visit(sub, `${path} ${sub.name()}`);
  };
  visit(program, program.name());
  return nodes;
}

function flagOf(option: Option): CompletionFlag {
  return {
    names: [option.short, option.long].filter((name): name is string => typeof name === 'string'),
    description: option.description,
    takesValue: option.required || option.optional,
    choices: (option.argChoices ?? []).filter((choice) => TOKEN.test(choice)),
  };
}

function isUsable(flag: CompletionFlag): boolean {
  return flag.names.length > 0 && flag.names.every((name) => TOKEN.test(name));
}
