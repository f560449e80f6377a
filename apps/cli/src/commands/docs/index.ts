import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { errorMessage } from '@edict/foundation';
import type { CommandIO } from '../io';
import { commandMarkdown, pageName, visibleCommands, type LinkHandler } from './markdown';

/** A cobra boolean flag: `--flag`, `--flag=true`, `--flag=false`. */
function bool(value: string): boolean {
  if (['true', '1', 't', 'T', 'TRUE', 'True'].includes(value)) return true;
  if (['false', '0', 'f', 'F', 'FALSE', 'False'].includes(value)) return false;
  throw new InvalidArgumentError(`strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
}

export interface DocsOptions {
  readonly output: string;
  readonly website: boolean;
  readonly autogenTag: boolean;
  readonly markdownLinks: boolean;
  readonly noDate: boolean;
}

/** The website front matter (`kyverno docs --website`): the date unless `--noDate`, the title, the weight. */
function frontMatter(file: string, noDate: boolean, now: Date): string {
  const title = basename(file).replace(/\.md$/, '').replace(/_/g, ' ');
  const date = noDate ? '' : `date: ${rfc3339(now)}\n`;
  return `---\n${date}title: "${title}"\nweight: 35\n---\n`;
}

/** Go's time.RFC3339 in UTC (`2026-11-30T02:00:00Z`). */
const rfc3339 = (now: Date) => now.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Writes one page per command below `root` (the root included) into `options.output`; returns the files. */
export function writeDocs(root: Command, options: DocsOptions, now: Date): string[] {
  mkdirSync(options.output, { recursive: true });
  const link: LinkHandler =
    options.website && !options.markdownLinks ? (file) => `../${file.replace(/\.md$/, '')}` : (file) => file;
  const written: string[] = [];
  const visit = (command: Command) => {
    for (const child of visibleCommands(command)) visit(child);
    const file = join(options.output, pageName(command));
    const header = options.website ? frontMatter(file, options.noDate, now) : '';
    writeFileSync(file, header + commandMarkdown(command, link, options.autogenTag, now));
    written.push(file);
  };
  visit(root);
  return written;
}

/**
 * `edict docs -o <dir>`: Kyverno's `kyverno docs`, the CLI reference as markdown (one page per
 * command, cobra's format), generated from the commands themselves.
 */
export function registerDocsCommand(
  program: Command,
  io: CommandIO,
  result: { code: number },
  now: () => Date = () => new Date(),
): Command {
  const docs = program
    .command('docs')
    .summary('Generates reference documentation.')
    .description(
      'Generates reference documentation.\n  \n  The docs command generates Edict CLI reference documentation.\n  \n  It can be used to generate simple markdown files or markdown to be used for the website.',
    )
    .option('-o, --output <path>', 'Output path', '.')
    .option('--website [bool]', 'Website version', bool, false)
    .option('--autogenTag [bool]', 'Determines if the generated docs should contain a timestamp', bool, true)
    .option(
      '--markdownLinks [bool]',
      'Determines if the generated docs should contain links to markdown files',
      bool,
      false,
    )
    .option('--noDate [bool]', 'Determines if the generated docs should contain a date', bool, false)
    .addHelpText(
      'after',
      '\nExamples:\n  # Generate simple markdown documentation\n  edict docs -o . --autogenTag=false\n\n  # Generate website documentation\n  edict docs -o . --website\n',
    )
    .action((options: DocsOptions) => {
      // Like Kyverno's (a required flag with a default), -o must be given.
      if (docs.getOptionValueSource('output') !== 'cli') {
        io.err('Error: required flag(s) "output" not set\n');
        result.code = 1;
        return;
      }
      if (options.output === '') {
        io.err('Error: path is required\n');
        result.code = 1;
        return;
      }
      try {
        let root = program;
        while (root.parent) root = root.parent;
        writeDocs(root, options, now());
        result.code = 0;
      } catch (error) {
        io.err(`Error: ${errorMessage(error)}\n`);
        result.code = 1;
      }
    });
  return docs;
}
