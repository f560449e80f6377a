import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { isDirectory, resourcePath, type CelEvaluatedResponse } from '@edict/kyverno-test';
import type { CommandIO } from '../commands/io';

/**
 * Kyverno's `apply` output for a GeneratingPolicy: each generated object as YAML under
 * `policy <name> applied to <resource>:`, then "Generation completed successfully."; with
 * `--output` the objects go to `<policy>-generated.yaml` in that directory, or are appended to that
 * file (emptied once per run). Returns whether the output file was emptied.
 */
export function printGenerated(
  io: CommandIO,
  record: CelEvaluatedResponse,
  output: string | undefined,
  truncated: boolean,
): boolean {
  if (record.kind !== 'GeneratingPolicy' && record.kind !== 'NamespacedGeneratingPolicy') return truncated;
  const policy = record.policy.metadata.name ?? '';
  for (const object of record.response.rules.flatMap((rule) => rule.generatedResources ?? [])) {
    const yaml = stringify(object, { lineWidth: 0, indentSeq: false });
    if (!output) {
      io.out(`\npolicy ${policy} applied to ${resourcePath(record.resource)}:\n${yaml}\n---\n`);
    } else if (output.endsWith('/') || isDirectory(output)) {
      mkdirSync(output, { recursive: true });
      appendFileSync(join(output, `${policy}-generated.yaml`), `${yaml}\n---\n\n`);
    } else {
      if (!truncated) writeFileSync(output, '');
      truncated = true;
      appendFileSync(output, `${yaml}\n---\n\n`);
    }
    io.out('\n\nGenerate:\nGeneration completed successfully.');
  }
  return truncated;
}
