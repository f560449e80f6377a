/**
 * A box-drawn table like the one Kyverno's CLI prints. Numeric columns are right-aligned; cells are
 * kept on one line (newlines become spaces) so the grid stays readable.
 */
export function renderTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  rightAligned: ReadonlySet<number> = new Set(),
): string {
  const clean = rows.map((row) => row.map((cell) => cell.replace(/\s*\n\s*/g, ' ')));
  const widths = headers.map((header, column) =>
    Math.max(width(header), ...clean.map((row) => width(row[column] ?? ''))),
  );
  const line = (left: string, middle: string, right: string) =>
    left + widths.map((w) => '─'.repeat(w + 2)).join(middle) + right;
  const cells = (row: readonly string[]) =>
    '│' + widths.map((w, column) => ` ${pad(row[column] ?? '', w, rightAligned.has(column))} `).join('│') + '│';
  const out = [line('┌', '┬', '┐'), cells(headers), line('├', '┼', '┤'), ...clean.map(cells), line('└', '┴', '┘')];
  return out.join('\n');
}

function width(text: string): number {
  return [...text].length;
}

function pad(text: string, size: number, right: boolean): string {
  const fill = ' '.repeat(size - width(text));
  return right ? fill + text : text + fill;
}
