export { matchPattern, type PatternResult, type WalkBudget } from './match';
export { compilePattern, type CompiledPattern } from './compiled';
export { matchValue, compileStringPattern, matchStringPattern, type StringPattern } from './leaf';
export { parseAnchor, formatAnchor, type Anchor, type AnchorModifier } from './anchor';
