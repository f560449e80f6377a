import type { EventEmitter } from 'node:events';
import type { Command, Option } from 'commander';

/** What commander passes to a help-text listener. */
interface HelpTextContext {
  error: boolean;
  command: Command;
  write: (text: string) => void;
}

/** `edict jp query`: the names from the root down. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** The one-line description (cobra's Short): the summary, or the description's first line. */
export function shortDescription(command: Command): string {
  return command.summary() || (command.description().split('\n')[0] ?? '');
}

/** The commands documented below `command` (the implicit help command is not one, as in cobra). */
export function visibleCommands(command: Command): Command[] {
  return command.commands
    .filter((c) => !(c as unknown as { _hidden?: boolean })._hidden)
    .sort((a, b) => (a.name() < b.name() ? -1 : a.name() > b.name() ? 1 : 0));
}

/** The text of the command's `Example:`/`Examples:` help block, as written after its help. */
export function examples(command: Command): string {
  let text = '';
  const context: HelpTextContext = { error: false, command, write: (s) => void (text += s) };
  // Commander keeps `addHelpText('after', ...)` as listeners of its `afterHelp` event.
  for (const listener of (command as unknown as EventEmitter).listeners('afterHelp'))
    (listener as (c: HelpTextContext) => void)(context);
  const lines = text.split('\n');
  const start = lines.findIndex((line) => /^Examples?:\s*$/.test(line));
  if (start < 0) return '';
  const block = lines.slice(start + 1);
  while (block.length > 0 && block[block.length - 1]!.trim() === '') block.pop();
  return block.join('\n');
}

const isBoolean = (option: Option) =>
  (!option.required && !option.optional) || (option.optional && typeof option.defaultValue === 'boolean');

/** pflag's value type name shown after a flag (`string`, `strings`, `int`; none for a boolean). */
function valueType(option: Option): string {
  if (isBoolean(option)) return '';
  if (Array.isArray(option.defaultValue)) return 'strings';
  if (typeof option.defaultValue === 'number' && option.defaultValueDescription === undefined) return 'int';
  return 'string';
}

/** pflag's ` (default x)`, left out for a zero value. */
function defaultText(option: Option, type: string): string {
  const value: unknown = option.defaultValueDescription ?? option.defaultValue;
  if (value === undefined || value === false || value === '' || value === 0) return '';
  if (Array.isArray(value)) return value.length === 0 ? '' : ` (default [${value.join(',')}])`;
  if (type === 'string') return ` (default ${JSON.stringify(String(value))})`;
  return ` (default ${String(value)})`;
}

interface FlagLine {
  readonly name: string;
  readonly term: string;
  readonly usage: string;
}

/** pflag's `FlagUsages`: sorted by name, usages aligned three spaces after the longest flag. */
export function flagUsages(command: Command): string {
  const lines: FlagLine[] = command.options
    .filter((option) => !option.hidden && option.long)
    .map((option) => {
      const name = option.long!.replace(/^--/, '');
      const type = valueType(option);
      const flags = option.short ? `  ${option.short}, --${name}` : `      --${name}`;
      return { name, term: type ? `${flags} ${type}` : flags, usage: option.description + defaultText(option, type) };
    });
  lines.push({ name: 'help', term: '  -h, --help', usage: `help for ${command.name()}` });
  lines.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const width = Math.max(...lines.map((line) => line.term.length));
  return lines.map((line) => `${line.term.padEnd(width)}   ${line.usage}\n`).join('');
}

/** cobra's `UseLine`: the path, the usage (Kyverno's `[-i input]...` where given) and `[flags]`. */
function useLine(command: Command): string {
  const usage = command
    .usage()
    .replace(/\[options\]\s*/, '')
    .replace(/\[command\]\s*/, '')
    .trim();
  return `${commandPath(command)}${usage ? ` ${usage}` : ''} [flags]`;
}

/** How a page names another page (`edict_jp.md`; the website form links `../edict_jp`). */
export type LinkHandler = (file: string) => string;

export const pageName = (command: Command): string => `${commandPath(command).replace(/ /g, '_')}.md`;

/**
 * One command's page in the format of cobra's markdown generator (what `kyverno docs` writes):
 * `## <path>`, the short description, `### Synopsis`, the usage line, `### Examples`,
 * `### Options`, `### SEE ALSO` (the parent, then the subcommands by name), and the
 * `###### Auto generated` line with the day unless `autogenTag` is off.
 */
export function commandMarkdown(command: Command, link: LinkHandler, autogenTag: boolean, now: Date): string {
  const path = commandPath(command);
  let out = `## ${path}\n\n${shortDescription(command)}\n\n`;
  const long = command.description();
  if (long) out += `### Synopsis\n\n${long}\n\n`;
  out += `\`\`\`\n${useLine(command)}\n\`\`\`\n\n`;
  const example = examples(command);
  if (example) out += `### Examples\n\n\`\`\`\n${example}\n\`\`\`\n\n`;
  out += `### Options\n\n\`\`\`\n${flagUsages(command)}\`\`\`\n\n`;
  const children = visibleCommands(command);
  if (command.parent || children.length > 0) {
    out += '### SEE ALSO\n\n';
    const parent = command.parent;
    if (parent) out += `* [${commandPath(parent)}](${link(pageName(parent))})\t - ${shortDescription(parent)}\n`;
    for (const child of children)
      out += `* [${commandPath(child)}](${link(pageName(child))})\t - ${shortDescription(child)}\n`;
    out += '\n';
  }
  if (autogenTag) out += `###### Auto generated by edict on ${cobraDay(now)}\n`;
  return out;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Go's `2-Jan-2006` layout (local time, as cobra prints it). */
function cobraDay(now: Date): string {
  return `${now.getDate()}-${MONTHS[now.getMonth()]}-${now.getFullYear()}`;
}
