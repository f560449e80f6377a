import type { Environment } from '@marcbachmann/cel-js';
import { errorMessage, yamlToJson } from '@edict/foundation';
import { celError } from '../libraries/errors';
import type { KyvernoCelLimits } from './ports';
import { fromDecodedJson } from './values';

export const YAML_TYPE = 'yaml.Yaml';

/** The value of the `yaml` variable (Kyverno declares it as a variable, not a namespace). */
export class CelYaml {}

/**
 * Kyverno's yaml library: `yaml.parse(text)` reads the first YAML document as sigs.k8s.io/yaml
 * does (YAML 1.1 scalars, then JSON: numbers are doubles).
 */
export function registerYaml(env: Environment, limits: KyvernoCelLimits): void {
  env.registerType(YAML_TYPE, CelYaml);
  env.registerConstant('yaml', YAML_TYPE, new CelYaml());
  env.registerFunction(`${YAML_TYPE}.parse(string): dyn`, (_yaml: CelYaml, text: string) => {
    if (text.length > limits.maxDocumentLength) {
      throw celError(`yaml.parse: the document is longer than ${limits.maxDocumentLength} characters`);
    }
    try {
      return fromDecodedJson(yamlToJson(text));
    } catch (error) {
      throw celError(errorMessage(error));
    }
  });
}
