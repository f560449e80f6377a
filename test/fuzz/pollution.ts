/**
 * Prototype pollution check: the built-in prototypes keep exactly the keys they had when the module
 * loaded. A polluted key is removed again after it is reported, so one finding does not make every
 * later case (and the shrinking of the first) fail too.
 */
const PROTOTYPES = { Object: Object.prototype, Array: Array.prototype, Function: Function.prototype } as const;

const baseline = new Map(Object.entries(PROTOTYPES).map(([name, proto]) => [name, new Set(Reflect.ownKeys(proto))]));

/** Throws, naming the prototype and the keys, when any built-in prototype gained a key. */
export function assertNoPrototypePollution(): void {
  const found: string[] = [];
  for (const [name, proto] of Object.entries(PROTOTYPES)) {
    const known = baseline.get(name)!;
    for (const key of Reflect.ownKeys(proto)) {
      if (known.has(key)) continue;
      found.push(`${name}.prototype.${String(key)}`);
      delete (proto as unknown as Record<PropertyKey, unknown>)[key];
    }
  }
  if (found.length > 0) throw new Error(`prototype pollution: ${found.join(', ')}`);
  if (({} as Record<string, unknown>)['polluted'] !== undefined)
    throw new Error('prototype pollution: ({}).polluted is set');
  if (Object.getPrototypeOf(Object.prototype) !== null)
    throw new Error('prototype pollution: Object.prototype has a prototype');
}
