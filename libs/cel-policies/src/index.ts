// @edict/cel-policies: Kyverno's CEL policy family (policies.kyverno.io): ValidatingPolicy and its
// Namespaced form, and the CEL PolicyException. Pure: everything it reads comes through interfaces.
export {};
