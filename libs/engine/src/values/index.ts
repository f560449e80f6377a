export { hasWildcard, wildcardMatch } from './wildcard';
export {
  canonicalQuantity,
  compareQuantities,
  formatQuantity,
  parseQuantity,
  quantitiesEqual,
  quantityToNumber,
  type Quantity,
  type QuantityFormat,
} from './quantity';
export { formatDuration, parseDuration, parseDurationNanos } from './duration';
export { compareSemver, parseSemver } from './semver';
