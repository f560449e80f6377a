/**
 * `status.typeChecking` of a ValidatingAdmissionPolicy, as kube's ValidatingAdmissionPolicy status
 * controller writes it: when the policy's generation is newer than `status.observedGeneration`,
 * every validation's `expression` and `messageExpression` is type-checked against each kind its
 * match constraints name explicitly (wildcard groups or versions skip a rule, wildcard resources
 * and subresources are left out, at most 10 kinds, kinds without a schema skipped), with `object`
 * and `oldObject` of that kind's schema and `params` of the paramKind's. The status gets
 * `observedGeneration` and `typeChecking.expressionWarnings` (`fieldRef`, `warning`: per kind,
 * `<group>/<version>, Kind=<kind>: ` and cel-go's errors). Kube writes no condition for it.
 *
 * Runs where the policy is stored (kube does it in a controller, with a second write); the
 * checker (@edict/cel's checkCelTypes) reports only what it knows for certain.
 */
import {
  checkCelTypes,
  CEL_DYN,
  formatCelIssues,
  schemaType,
  type CelCheckedType,
  type SchemaDefinitions,
} from '@edict/cel';
import { isObject, type JsonObject } from '@edict/foundation';
import { builtinDefinitions, customDefinition, definitionName } from '../../http/openapi-schemas';
import type { ResourceRegistry } from '../../registry/registry';
import { ADMISSION_REGISTRATION_GROUP } from '../../registry/admission-policy-types';
import type { ResourceType } from '../../registry/resource-type';
import type { StorageObserver } from '../../lifecycle/storage-observer';

/** Kube's maxTypesToCheck. */
const MAX_TYPES_TO_CHECK = 10;

interface CheckedKind {
  readonly label: string;
  readonly type: CelCheckedType;
}

/** Writes the type checking status of ValidatingAdmissionPolicies as they are stored. */
export class AdmissionPolicyTypeChecking implements StorageObserver {
  constructor(private readonly registry: ResourceRegistry) {}

  storing(type: ResourceType, object: JsonObject): JsonObject {
    if (type.group !== ADMISSION_REGISTRATION_GROUP || type.kind !== 'ValidatingAdmissionPolicy') return object;
    const metadata = isObject(object.metadata) ? object.metadata : {};
    const status = isObject(object.status) ? object.status : {};
    const generation = typeof metadata.generation === 'number' ? metadata.generation : 0;
    const observed = typeof status.observedGeneration === 'number' ? status.observedGeneration : 0;
    if (generation <= observed) return object;
    const spec = isObject(object.spec) ? object.spec : {};
    const warnings = this.check(spec);
    return {
      ...object,
      status: {
        ...status,
        observedGeneration: generation,
        typeChecking: warnings.length > 0 ? { expressionWarnings: warnings } : {},
      },
    };
  }

  /** The expression warnings of a policy's spec (kube's TypeChecker.Check). */
  check(spec: JsonObject): JsonObject[] {
    const kinds = this.kindsToCheck(spec);
    if (kinds.length === 0) return [];
    const params = this.paramsType(spec);
    const warnings: JsonObject[] = [];
    const validations = Array.isArray(spec.validations) ? spec.validations : [];
    validations.forEach((validation, index) => {
      if (!isObject(validation)) return;
      for (const field of ['expression', 'messageExpression'] as const) {
        const expression = validation[field];
        if (typeof expression !== 'string' || expression === '') continue;
        const warning = kinds
          .map((kind) => {
            const variables = { object: kind.type, oldObject: kind.type, params };
            const issues = checkCelTypes(expression, variables);
            return issues.length > 0 ? `${kind.label}: ${formatCelIssues(expression, issues)}\n` : '';
          })
          .filter((text) => text !== '')
          .join('\n');
        if (warning !== '') warnings.push({ fieldRef: `spec.validations[${index}].${field}`, warning });
      }
    });
    return warnings;
  }

  /** Kube's typesToCheck: the kinds the resource rules of matchConstraints name, sorted by group, version, kind. */
  private kindsToCheck(spec: JsonObject): CheckedKind[] {
    const constraints = isObject(spec.matchConstraints) ? spec.matchConstraints : {};
    const rules = Array.isArray(constraints.resourceRules) ? constraints.resourceRules.filter(isObject) : [];
    const found = new Map<string, ResourceType>();
    collect: for (const rule of rules) {
      const groups = strings(rule.apiGroups);
      const versions = strings(rule.apiVersions);
      if (groups.some((g) => g.includes('*')) || versions.some((v) => v.includes('*'))) continue;
      const resources = strings(rule.resources).filter((r) => !/[*/]/.test(r));
      for (const group of [...groups].sort()) {
        for (const version of [...versions].sort()) {
          for (const resource of [...resources].sort()) {
            const type = this.registry.find(group, version, resource);
            if (!type) continue;
            found.set(`${type.group}/${type.version}/${type.kind}`, type);
            if (found.size === MAX_TYPES_TO_CHECK) break collect;
          }
        }
      }
    }
    const sorted = [...found.values()].sort(
      (a, b) => compare(a.group, b.group) || compare(a.version, b.version) || compare(a.kind, b.kind),
    );
    return sorted.flatMap((type) => {
      const checked = this.schemaOf(type);
      return checked ? [{ label: `${type.group}/${type.version}, Kind=${type.kind}`, type: checked }] : [];
    });
  }

  private paramsType(spec: JsonObject): CelCheckedType {
    const paramKind = isObject(spec.paramKind) ? spec.paramKind : undefined;
    if (typeof paramKind?.apiVersion !== 'string' || typeof paramKind.kind !== 'string') return CEL_DYN;
    const type = this.registry.findByKind(paramKind.apiVersion, paramKind.kind);
    return (type && this.schemaOf(type)) ?? CEL_DYN;
  }

  /** The CEL type of a kind's schema: a built-in's OpenAPI definition, a custom resource's openAPIV3Schema. */
  private schemaOf(type: ResourceType): CelCheckedType | undefined {
    const definitions = builtinDefinitions(this.registry);
    const lookup: SchemaDefinitions = (name) => definitions[name];
    if (!type.builtin) return type.schema ? schemaType(customDefinition(type), lookup) : undefined;
    const name = definitionName(type);
    const definition = name ? definitions[name] : undefined;
    return definition ? schemaType(definition, lookup) : undefined;
  }
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
