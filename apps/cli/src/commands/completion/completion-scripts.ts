/**
 * Completion scripts for bash, zsh, fish and PowerShell, rendered from the completion model. Each
 * script walks the words typed so far to find the command path (skipping flags and the values of
 * flags that take one), then offers that command's sub-commands, its flags (when the word starts
 * with `-`), a flag's choices after it, or files.
 */
import type { CompletionNode } from './completion-model';

export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;
export type Shell = (typeof SHELLS)[number];

export interface ScriptOptions {
  /** Cobra's `--no-descriptions`: completions without their descriptions (fish, PowerShell). */
  readonly descriptions: boolean;
}

export function completionScript(shell: Shell, nodes: readonly CompletionNode[], options: ScriptOptions): string {
  switch (shell) {
    case 'bash':
      return bashScript(nodes);
    case 'zsh':
      return zshScript(nodes);
    case 'fish':
      return fishScript(nodes, options);
    case 'powershell':
      return powershellScript(nodes, options);
  }
}

/** A shell function name for the program (`edict` -> `_edict`). */
function functionName(nodes: readonly CompletionNode[]): string {
  return `_${nodes[0].path.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

const words = (list: readonly string[]) => list.join(' ');
const flagNames = (node: CompletionNode) => node.flags.flatMap((flag) => flag.names);
const valueFlags = (node: CompletionNode) => node.flags.filter((flag) => flag.takesValue).flatMap((flag) => flag.names);
const singleQuoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** The sh `case` bodies shared by bash and zsh: what each path offers, and the choices of flags. */
function shFunctions(fn: string, nodes: readonly CompletionNode[]): string {
  const describe = nodes
    .map(
      (node) =>
        `    ${singleQuoted(node.path)})\n` +
        `      ${fn}_subs=${singleQuoted(words(node.subcommands.map((sub) => sub.name)))}\n` +
        `      ${fn}_flags=${singleQuoted(words(flagNames(node)))}\n` +
        `      ${fn}_values=${singleQuoted(` ${words(valueFlags(node))} `)} ;;`,
    )
    .join('\n');
  const choices = nodes
    .flatMap((node) =>
      node.flags
        .filter((flag) => flag.choices.length > 0)
        .map(
          (flag) =>
            `    ${flag.names.map((name) => singleQuoted(`${node.path}|${name}`)).join(' | ')}) echo ${singleQuoted(words(flag.choices))} ;;`,
        ),
    )
    .join('\n');
  return `${fn}_describe() {
  ${fn}_subs='' ${fn}_flags='' ${fn}_values=' '
  case "$1" in
${describe}
  esac
}

${fn}_choices() {
  case "$1|$2" in
${choices || "    '') ;;"}
  esac
}

# The command path of the first $1 words after the program's name (the words follow); sets
# ${fn}_skip when the last of them is a flag awaiting its value.
${fn}_walk() {
  local count=$1 word
  shift
  ${fn}_path=${singleQuoted(nodes[0].path)} ${fn}_skip=0
  while ((count > 0)); do
    word=$1
    shift
    count=$((count - 1))
    ${fn}_describe "$${fn}_path"
    if ((${fn}_skip)); then ${fn}_skip=0; continue; fi
    case "$word" in
      --*=*) continue ;;
      -*) [[ "$${fn}_values" == *" $word "* ]] && ${fn}_skip=1; continue ;;
    esac
    [[ " $${fn}_subs " == *" $word "* ]] && ${fn}_path="$${fn}_path $word"
  done
  ${fn}_describe "$${fn}_path"
}`;
}

function bashScript(nodes: readonly CompletionNode[]): string {
  const fn = functionName(nodes);
  const program = nodes[0].path;
  return `# bash completion for ${program}: source <(${program} completion bash)
${shFunctions(fn, nodes)}

${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  ${fn}_walk $((COMP_CWORD - 1)) "\${COMP_WORDS[@]:1}"
  if ((${fn}_skip)); then
    COMPREPLY=($(compgen -W "$(${fn}_choices "$${fn}_path" "\${COMP_WORDS[COMP_CWORD - 1]}")" -- "$cur"))
  elif [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$${fn}_flags" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$${fn}_subs" -- "$cur"))
  fi
}

complete -o default -F ${fn} ${program}
`;
}

function zshScript(nodes: readonly CompletionNode[]): string {
  const fn = functionName(nodes);
  const program = nodes[0].path;
  return `#compdef ${program}
# zsh completion for ${program}: source <(${program} completion zsh), or save as _${program} in $fpath
${shFunctions(fn, nodes)}

${fn}() {
  local cur="\${words[CURRENT]}" choices
  ${fn}_walk $((CURRENT - 2)) "\${words[@]:1}"
  if ((${fn}_skip)); then
    choices="$(${fn}_choices "$${fn}_path" "\${words[CURRENT-1]}")"
    if [[ -n "$choices" ]]; then compadd -- \${=choices}; else _files; fi
  elif [[ "$cur" == -* ]]; then
    compadd -- \${=${fn}_flags}
  elif [[ -n "$${fn}_subs" ]]; then
    compadd -- \${=${fn}_subs}
  else
    _files
  fi
}

if [ "$funcstack[1]" = "${fn}" ]; then
  ${fn} "$@"
else
  compdef ${fn} ${program}
fi
`;
}

function fishScript(nodes: readonly CompletionNode[], options: ScriptOptions): string {
  const fn = `_${functionName(nodes)}`;
  const program = nodes[0].path;
  const fishQuoted = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const describe = (text: string) => (options.descriptions && text ? ` -d ${fishQuoted(firstLine(text))}` : '');
  const cases = (pick: (node: CompletionNode) => readonly string[]) =>
    nodes
      .map((node) => `        case ${fishQuoted(node.path)}\n            echo ${fishQuoted(words(pick(node)))}`)
      .join('\n');
  const lines: string[] = [];
  for (const node of nodes) {
    const when = `-n "${fn}_is ${fishQuoted(node.path).replace(/"/g, '\\"')}"`;
    for (const sub of node.subcommands) {
      lines.push(`complete -c ${program} ${when} -f -a ${fishQuoted(sub.name)}${describe(sub.description)}`);
    }
    for (const flag of node.flags) {
      const names = flag.names.map((name) => (name.startsWith('--') ? `-l ${name.slice(2)}` : `-s ${name.slice(1)}`));
      const value =
        flag.choices.length > 0 ? ` -x -a ${fishQuoted(words(flag.choices))}` : flag.takesValue ? ' -r' : '';
      lines.push(`complete -c ${program} ${when} ${names.join(' ')}${value}${describe(flag.description)}`);
    }
  }
  return `# fish completion for ${program}: ${program} completion fish | source
function ${fn}_subs
    switch $argv[1]
${cases((node) => node.subcommands.map((sub) => sub.name))}
    end
end

function ${fn}_values
    switch $argv[1]
${cases(valueFlags)}
    end
end

# The command path of the words before the cursor, flags and their values skipped.
function ${fn}_path
    set -l tokens (commandline -opc)
    set -l cmdpath ${fishQuoted(program)}
    set -l skip 0
    for word in $tokens[2..-1]
        if test $skip -eq 1
            set skip 0
            continue
        end
        if string match -q -- '-*' $word
            if contains -- $word (string split ' ' -- (${fn}_values $cmdpath))
                set skip 1
            end
            continue
        end
        if contains -- $word (string split ' ' -- (${fn}_subs $cmdpath))
            set cmdpath "$cmdpath $word"
        end
    end
    echo $cmdpath
end

function ${fn}_is
    test (${fn}_path) = $argv[1]
end

${lines.join('\n')}
`;
}

function powershellScript(nodes: readonly CompletionNode[], options: ScriptOptions): string {
  const program = nodes[0].path;
  const quoted = (text: string) => `'${text.replace(/'/g, "''")}'`;
  const list = (items: readonly string[]) => `@(${items.map(quoted).join(', ')})`;
  const table = (entries: ReadonlyArray<[string, string]>) =>
    entries.length === 0
      ? '@{}'
      : `@{\n${entries.map(([key, value]) => `        ${quoted(key)} = ${value}`).join('\n')}\n    }`;
  const subs = table(nodes.map((node) => [node.path, list(node.subcommands.map((sub) => sub.name))]));
  const flags = table(nodes.map((node) => [node.path, list(flagNames(node))]));
  const values = table(nodes.map((node) => [node.path, list(valueFlags(node))]));
  const choices = table(
    nodes.flatMap((node) =>
      node.flags
        .filter((flag) => flag.choices.length > 0)
        .flatMap((flag) => flag.names.map((name): [string, string] => [`${node.path}|${name}`, list(flag.choices)])),
    ),
  );
  const descriptions = table(
    options.descriptions
      ? nodes.flatMap((node) => [
          ...node.subcommands.map((sub): [string, string] => [
            `${node.path}|${sub.name}`,
            quoted(firstLine(sub.description)),
          ]),
          ...node.flags.flatMap((flag) =>
            flag.names.map((name): [string, string] => [`${node.path}|${name}`, quoted(firstLine(flag.description))]),
          ),
        ])
      : [],
  );
  return `# PowerShell completion for ${program}: ${program} completion powershell | Out-String | Invoke-Expression
Register-ArgumentCompleter -Native -CommandName ${quoted(program)} -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $subs = ${subs}
    $flags = ${flags}
    $values = ${values}
    $choices = ${choices}
    $descriptions = ${descriptions}
    $elements = @($commandAst.CommandElements | Where-Object { $_.Extent.EndOffset -lt $cursorPosition } | ForEach-Object { $_.ToString() })
    $path = ${quoted(program)}
    $skip = $false
    for ($i = 1; $i -lt $elements.Count; $i++) {
        $word = $elements[$i]
        if ($skip) { $skip = $false; continue }
        if ($word.StartsWith('-')) {
            if ($values[$path] -contains $word) { $skip = $true }
            continue
        }
        if ($subs[$path] -contains $word) { $path = "$path $word" }
    }
    if ($skip) { $candidates = $choices["$path|$($elements[-1])"] }
    elseif ($wordToComplete.StartsWith('-')) { $candidates = $flags[$path] }
    else { $candidates = $subs[$path] }
    @($candidates) | Where-Object { $_ -and $_.StartsWith($wordToComplete) } | ForEach-Object {
        $tip = $descriptions["$path|$_"]
        if (-not $tip) { $tip = $_ }
        [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $tip)
    }
}
`;
}

function firstLine(text: string): string {
  return text.split('\n')[0].slice(0, 200);
}
