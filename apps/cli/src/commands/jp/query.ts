import { deadlineAfter, EvaluationBudget, errorMessage, goJson, yamlToJson, type JsonValue } from '@edict/foundation';
import { compileJmesPath } from '@edict/jmespath';
import type { CommandIO } from '../io';
import { JmesPathSyntaxError, parseExpression } from './ast';
import { goJsonIndent } from './go-text';
import { checkQueryLength, readJpFile, standardInput } from './input';

/** How long one query may run before it is stopped (the engine's limits bound what it builds). */
const QUERY_DEADLINE_MS = 10_000;

export interface QueryOptions {
  readonly compact: boolean;
  readonly unquoted: boolean;
  /** Files holding one expression each. */
  readonly query: readonly string[];
  readonly input?: string;
}

function parseInput(text: string): JsonValue {
  try {
    return yamlToJson(text);
  } catch (error) {
    throw new Error(`error parsing input json: ${errorMessage(error)}`);
  }
}

async function readStdin(io: CommandIO, prompt: string): Promise<string> {
  io.out(`Reading from terminal input.\n${prompt}\n`);
  return standardInput.read();
}

function evaluate(input: JsonValue, query: string): JsonValue {
  try {
    parseExpression(query);
  } catch (error) {
    if (error instanceof JmesPathSyntaxError)
      throw new Error(`failed to compile JMESPath: ${query}, error: ${error.message}`);
    throw error;
  }
  try {
    return compileJmesPath(query).search(input, new EvaluationBudget({}, deadlineAfter(QUERY_DEADLINE_MS)));
  } catch (error) {
    throw new Error(`error evaluating JMESPath expression: ${errorMessage(error)}`);
  }
}

/**
 * `jp query`: each expression (arguments, then `-q` files) over the input (`-i` file, YAML or
 * JSON), printed as `# <query>` and the result as indented JSON (`--compact`: one line;
 * `--unquoted`: a string result as is). A missing query or input is read from stdin.
 */
export async function queryCommand(args: readonly string[], options: QueryOptions, io: CommandIO): Promise<void> {
  const queries = args.map((query, index) => {
    checkQueryLength(query, `argument ${index + 1}`);
    return query;
  });
  for (const file of options.query) {
    const query = readJpFile(file, 'failed to read');
    checkQueryLength(query, file);
    queries.push(query);
  }
  let input: JsonValue | undefined = options.input
    ? parseInput(readJpFile(options.input, 'failed to read'))
    : undefined;
  if (queries.length === 0 && input === undefined) throw new Error('at least one query or input object is required');
  if (queries.length === 0) {
    const query = await readStdin(io, 'Enter a jmespath expression and hit Ctrl+D.');
    checkQueryLength(query, 'stdin');
    queries.push(query);
  }
  if (input === undefined) input = parseInput(await readStdin(io, 'Enter input object and hit Ctrl+D.'));
  for (const query of queries) {
    const result = evaluate(input, query);
    io.out(`# ${query}\n`);
    if (options.unquoted && typeof result === 'string') io.out(`${result}\n`);
    else io.out(`${options.compact ? goJson(result) : goJsonIndent(result)}\n`);
  }
}
