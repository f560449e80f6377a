export { matchPattern, type PatternResult } from './match';
export { matchValue, compileStringPattern, matchStringPattern, type StringPattern } from './leaf';
export { parseAnchor, formatAnchor, type Anchor, type AnchorModifier } from './anchor';
