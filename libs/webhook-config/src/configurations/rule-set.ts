/**
 * A set of admission rule entries (group, version, resource, subresource, scope, one operation)
 * compacted into webhook rules the way Kyverno does: an entry already covered by a wider one
 * (`*` group/version/resource, `pods/*`, scope `*`) is dropped; the rest are grouped per
 * group/version/scope, then per identical operation set; core `pods` (or `*`) also gets
 * `pods/ephemeralcontainers` so Pod policies keep guarding debug containers; everything is sorted
 * so equal inputs give byte-equal output.
 */
import type { OperationType, RuleWithOperations, ScopeType } from './types';

export const ALL_OPERATIONS: readonly OperationType[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

export interface RuleEntry {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
  readonly scope: ScopeType;
  readonly operation: OperationType;
}

const SEP = '\u0000';
const keyOf = (e: RuleEntry): string => [e.group, e.version, e.resource, e.subresource, e.scope, e.operation].join(SEP);

export class RuleSet {
  private readonly entries = new Map<string, RuleEntry>();

  get size(): number {
    return this.entries.size;
  }

  add(entry: Omit<RuleEntry, 'operation'>, operations: Iterable<OperationType>): void {
    for (const operation of operations) {
      const full = { ...entry, operation };
      this.entries.set(keyOf(full), full);
    }
  }

  addAll(other: RuleSet): void {
    for (const [key, entry] of other.entries) this.entries.set(key, entry);
  }

  /** Whether every entry of `other` is in this set. */
  containsAll(other: RuleSet): boolean {
    for (const key of other.entries.keys()) if (!this.entries.has(key)) return false;
    return true;
  }

  has(entry: RuleEntry): boolean {
    return this.entries.has(keyOf(entry));
  }

  /** Reads rules back into entries (to union what is published with what is wanted). */
  static fromRules(rules: readonly RuleWithOperations[] | undefined): RuleSet {
    const set = new RuleSet();
    for (const rule of rules ?? []) {
      for (const group of rule.apiGroups ?? [])
        for (const version of rule.apiVersions ?? [])
          for (const name of rule.resources ?? []) {
            const slash = name.indexOf('/');
            const resource = slash < 0 ? name : name.slice(0, slash);
            const subresource = slash < 0 ? '' : name.slice(slash + 1);
            set.add({ group, version, resource, subresource, scope: rule.scope ?? '*' }, rule.operations ?? []);
          }
    }
    return set;
  }

  /** The compacted, sorted webhook rules. */
  toRules(): RuleWithOperations[] {
    // group/version/scope -> resource name -> operations
    const byGvs = new Map<
      string,
      { group: string; version: string; scope: ScopeType; resources: Map<string, Set<OperationType>> }
    >();
    for (const entry of this.entries.values()) {
      if (this.coveredElsewhere(entry)) continue;
      const gvsKey = [entry.group, entry.version, entry.scope].join(SEP);
      let gvs = byGvs.get(gvsKey);
      if (!gvs)
        byGvs.set(
          gvsKey,
          (gvs = { group: entry.group, version: entry.version, scope: entry.scope, resources: new Map() }),
        );
      const name = entry.subresource ? `${entry.resource}/${entry.subresource}` : entry.resource;
      let ops = gvs.resources.get(name);
      if (!ops) gvs.resources.set(name, (ops = new Set()));
      ops.add(entry.operation);
    }
    const out: RuleWithOperations[] = [];
    for (const gvs of byGvs.values()) {
      // Invert: one rule per distinct operation set.
      const byOps = new Map<string, { operations: OperationType[]; resources: Set<string> }>();
      for (const [name, ops] of gvs.resources) {
        const operations = [...ops].sort();
        const opsKey = operations.join(',');
        let bucket = byOps.get(opsKey);
        if (!bucket) byOps.set(opsKey, (bucket = { operations, resources: new Set() }));
        bucket.resources.add(name);
      }
      for (const { operations, resources } of byOps.values()) {
        const coreV1 = (gvs.group === '' || gvs.group === '*') && (gvs.version === 'v1' || gvs.version === '*');
        if (coreV1 && (resources.has('pods') || resources.has('*'))) resources.add('pods/ephemeralcontainers');
        out.push({
          apiGroups: [gvs.group],
          apiVersions: [gvs.version],
          resources: [...resources].sort(),
          scope: gvs.scope,
          operations,
        });
      }
    }
    return out.sort(compareRules);
  }

  /** Whether a strictly wider entry with the same operation is in the set. */
  private coveredElsewhere(entry: RuleEntry): boolean {
    const scopes: ScopeType[] = entry.scope === '*' ? ['*'] : [entry.scope, '*'];
    const groups = entry.group === '*' ? ['*'] : [entry.group, '*'];
    const versions = entry.version === '*' ? ['*'] : [entry.version, '*'];
    const resources = widerResources(entry.resource, entry.subresource);
    for (const scope of scopes)
      for (const group of groups)
        for (const version of versions)
          for (const [resource, subresource] of resources) {
            const candidate: RuleEntry = { group, version, resource, subresource, scope, operation: entry.operation };
            if (keyOf(candidate) !== keyOf(entry) && this.has(candidate)) return true;
          }
    return false;
  }
}

/**
 * The resource/subresource pairs that cover (resource, subresource), itself included:
 * `pods` ⊂ `*` ⊂ `*\/*`; `pods/exec` ⊂ `pods/*`, `*\/exec` ⊂ `*\/*` (but `pods/*` does not cover `pods`).
 */
function widerResources(resource: string, subresource: string): Array<[string, string]> {
  if (subresource === '')
    return resource === '*'
      ? [
          ['*', ''],
          ['*', '*'],
        ]
      : [
          [resource, ''],
          ['*', ''],
          ['*', '*'],
        ];
  if (subresource === '*')
    return resource === '*'
      ? [['*', '*']]
      : [
          [resource, '*'],
          ['*', '*'],
        ];
  return resource === '*'
    ? [
        ['*', subresource],
        ['*', '*'],
      ]
    : [
        [resource, subresource],
        [resource, '*'],
        ['*', subresource],
        ['*', '*'],
      ];
}

/** Kyverno's order: shorter lists first, then element-wise, then scope. */
function compareRules(a: RuleWithOperations, b: RuleWithOperations): number {
  return (
    compareLists(a.apiGroups, b.apiGroups) ||
    compareLists(a.apiVersions, b.apiVersions) ||
    compareLists(a.resources, b.resources) ||
    compareLists(a.operations, b.operations) ||
    compareStrings(a.scope, b.scope)
  );
}

function compareLists(a: readonly string[], b: readonly string[]): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let i = 0; i < a.length; i++) {
    const c = compareStrings(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return 0;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
