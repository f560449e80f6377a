import type { CommandIO } from '../io';
import { printAst, JmesPathSyntaxError } from './ast';
import { checkQueryLength, readJpFile, standardInput } from './input';

/** `jp parse`: the AST of each expression (arguments first, then files; stdin when there is none). */
export async function parseCommand(args: readonly string[], files: readonly string[], io: CommandIO): Promise<void> {
  const expressions = args.map((expression, index) => {
    checkQueryLength(expression, `argument ${index + 1}`);
    return expression;
  });
  for (const file of files) {
    const text = readJpFile(file, 'failed read');
    checkQueryLength(text, file);
    expressions.push(text);
  }
  if (expressions.length === 0) {
    io.out('Reading from terminal input.\nEnter a jmespath expression and hit Ctrl+D.\n');
    let text: string;
    try {
      text = await standardInput.read();
    } catch (error) {
      throw new Error(`failed to read file STDIN: ${(error as Error).message}`);
    }
    checkQueryLength(text, 'stdin');
    expressions.push(text);
  }
  for (const expression of expressions) {
    let ast: string;
    try {
      ast = printAst(expression);
    } catch (error) {
      if (error instanceof JmesPathSyntaxError) throw new Error(`${error.message}\n${expression}`);
      throw error;
    }
    io.out(`# ${expression}\n${ast}\n`);
  }
}
