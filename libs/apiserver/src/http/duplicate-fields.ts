/**
 * Keys that appear twice in one JSON object of a request body, by path (`spec.replicas`,
 * `spec.containers[0].name`): JSON.parse keeps the last silently, kube's strict decoder reports
 * them under `fieldValidation` Strict and Warn. The text is valid JSON (it parsed already); every
 * loop still stops at its end.
 */
export function duplicateFields(text: string): string[] {
  const found: string[] = [];
  let at = 0;

  const space = (): void => {
    while (at < text.length && ' \t\r\n'.includes(text[at]!)) at++;
  };
  const string = (): string => {
    const start = at;
    at++; // opening quote
    while (at < text.length && text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    at++;
    return JSON.parse(text.slice(start, at)) as string;
  };
  const value = (path: string): void => {
    space();
    const c = text[at];
    if (c === '{') {
      at++;
      const seen = new Set<string>();
      space();
      while (at < text.length && text[at] !== '}') {
        space();
        const key = string();
        const field = path === '' ? key : `${path}.${key}`;
        if (seen.has(key)) found.push(field);
        seen.add(key);
        space();
        at++; // colon
        value(field);
        space();
        if (text[at] === ',') at++;
        space();
      }
      at++;
    } else if (c === '[') {
      at++;
      space();
      for (let index = 0; at < text.length && text[at] !== ']'; index++) {
        value(`${path}[${index}]`);
        space();
        if (text[at] === ',') at++;
        space();
      }
      at++;
    } else if (c === '"') string();
    else while (at < text.length && !',}] \t\r\n'.includes(text[at]!)) at++;
  };

  value('');
  return found;
}
