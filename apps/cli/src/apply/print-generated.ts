import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { isDirectory, resourcePath, type CelEvaluatedResponse } from '@edict/kyverno-test';
import type { CommandIO } from '../commands/io';

/**
 * Kyverno's `apply` output for a GeneratingPolicy: each generated object as YAML under
 * `policy <name> applied to <resource>:`, then "Generation completed successfully."; with
 * `--output` the objects go to `<policy>-generated.yaml` in that folder, or are appended to that file
 * (which apply empties first).
 */
export function printGenerated(io: CommandIO, record: CelEvaluatedResponse, output: string | undefined): void {
  if (record.kind !== 'GeneratingPolicy' && record.kind !== 'NamespacedGeneratingPolicy') return;
  const policy = record.policy.metadata.name ?? '';
  for (const object of record.response.rules.flatMap((rule) => rule.generatedResources ?? [])) {
    const yaml = stringify(object, { lineWidth: 0, indentSeq: false });
    if (!output) {
      io.out(`\npolicy ${policy} applied to ${resourcePath(record.resource)}:\n${yaml}\n---\n`);
    } else {
      appendFileSync(isDirectory(output) ? join(output, `${policy}-generated.yaml`) : output, `${yaml}\n---\n\n`);
    }
    io.out('\n\nGenerate:\nGeneration completed successfully.');
  }
}
