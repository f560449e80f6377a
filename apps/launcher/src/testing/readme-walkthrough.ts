/**
 * The README's newcomer walkthrough as data: the shell block between `<!-- walkthrough:start -->`
 * and `<!-- walkthrough:end -->`, split into steps. A step is a command (with its heredoc, or its
 * lines continued by a backslash, if any) followed by `# ` comment lines showing what it prints; `# ...` stands for lines left out, and a
 * `<word>` in angle brackets (`<uid>`, `<age>`) for a value that differs from run to run.
 */
import { readFileSync } from 'node:fs';

export const WALKTHROUGH_START = '<!-- walkthrough:start -->';
export const WALKTHROUGH_END = '<!-- walkthrough:end -->';

export interface WalkthroughStep {
  /** The command as typed, heredoc included. */
  readonly command: string;
  /** Printed lines (trimmed, empty and `...` lines dropped), in order. */
  readonly expected: readonly string[];
}

export function readWalkthrough(readmePath: string): WalkthroughStep[] {
  return readReadmeSteps(readmePath, WALKTHROUGH_START, WALKTHROUGH_END);
}

/** The steps of the ```sh block between two markers of the README (other checked examples use this too). */
export function readReadmeSteps(readmePath: string, startMarker: string, endMarker: string): WalkthroughStep[] {
  const text = readFileSync(readmePath, 'utf8');
  const start = text.indexOf(startMarker);
  const end = text.indexOf(endMarker);
  if (start < 0 || end < start) throw new Error(`${readmePath}: no ${startMarker} ... ${endMarker} section`);
  const fence = /```sh\n([\s\S]*?)```/.exec(text.slice(start, end));
  if (!fence) throw new Error(`${readmePath}: the ${startMarker} section holds no \`\`\`sh block`);
  return parseSteps(fence[1]!);
}

export function parseSteps(block: string): WalkthroughStep[] {
  const lines = block.split('\n');
  const steps: Array<{ command: string[]; expected: string[] }> = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const step = steps.at(-1);
      if (!step) throw new Error(`walkthrough: output before any command: ${line}`);
      const printed = line.replace(/^#\s?/, '').trim();
      if (printed !== '' && printed !== '...') step.expected.push(printed);
      continue;
    }
    const command = [line];
    // A line ending in a backslash goes on in the next one, as in the shell.
    while (command.at(-1)!.endsWith('\\') && index + 1 < lines.length) command.push(lines[++index]!);
    const heredoc = /<<-?\s*'?(\w+)'?\s*$/.exec(line);
    if (heredoc) {
      for (index++; index < lines.length && lines[index] !== heredoc[1]; index++) command.push(lines[index]!);
      if (index >= lines.length) throw new Error(`walkthrough: heredoc ${heredoc[1]} is not closed`);
      command.push(heredoc[1]!);
    }
    steps.push({ command, expected: [] });
  }
  return steps.map(({ command, expected }) => ({ command: command.join('\n'), expected }));
}

/** A bash script running every step in one shell, marking where each one's output starts and ends. */
export function walkthroughScript(steps: readonly WalkthroughStep[]): string {
  return [
    'exec 2>&1',
    ...steps.flatMap((step, index) => [`echo '@@step ${index}@@'`, step.command, `echo "@@exit $?@@"`]),
    '',
  ].join('\n');
}

export interface StepResult {
  readonly output: string[];
  readonly exitCode: number;
}

/** Splits the script's output back into steps. */
export function splitOutput(output: string, count: number): StepResult[] {
  const results: StepResult[] = [];
  for (let index = 0; index < count; index++) {
    const start = output.indexOf(`@@step ${index}@@\n`);
    if (start < 0) throw new Error(`walkthrough: step ${index} never ran; output:\n${output}`);
    const rest = output.slice(start + `@@step ${index}@@\n`.length);
    const exit = /@@exit (\d+)@@/.exec(rest);
    if (!exit) throw new Error(`walkthrough: step ${index} did not finish; output:\n${output}`);
    results.push({
      output: rest
        .slice(0, exit.index)
        .split('\n')
        .map((line) => line.trim()),
      exitCode: Number(exit[1]),
    });
  }
  return results;
}

/**
 * The expected lines not found, in order, among the printed ones. Each must appear within a printed
 * line, where a run of spaces matches any run (kubectl pads columns to their widest cell) and a
 * `<word>` placeholder matches any one word.
 */
export function missingLines(expected: readonly string[], printed: readonly string[]): string[] {
  const missing: string[] = [];
  let from = 0;
  for (const line of expected) {
    const pattern = linePattern(line);
    const at = printed.findIndex((candidate, index) => index >= from && pattern.test(candidate));
    if (at < 0) missing.push(line);
    else from = at + 1;
  }
  return missing;
}

function linePattern(line: string): RegExp {
  const parts = line.split(/(<[a-z][a-z-]*>|\s+)/).map((part) => {
    if (/^<[a-z][a-z-]*>$/.test(part)) return '\\S+';
    if (/^\s+$/.test(part)) return '\\s+';
    return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  });
  return new RegExp(parts.join(''));
}
