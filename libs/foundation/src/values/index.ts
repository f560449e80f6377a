export { compileWildcard, hasWildcard, wildcardMatch } from './wildcard';
export { compileGoRegexp, goRegexpMatch, goRegexpMatchLenient, goRegexpReplaceAll } from './go-regexp';
export {
  approximateFloat64,
  canonicalQuantity,
  compareQuantities,
  formatQuantity,
  parseDecimalQuantity,
  parseQuantity,
  quantitiesEqual,
  quantityToNumber,
  roundUpDivide,
  type DecimalQuantity,
  type Quantity,
  type QuantityFormat,
} from './quantity';
export { formatDuration, parseDuration, parseDurationNanos } from './duration';
export { compareSemver, parseSemver } from './semver';
export { goParseFloat, goUnderscoresAllowed } from './go-float';
export { cleanPath, isAbsolute, joinPath } from './go-path';
export { MAX_RANDOM_LENGTH, randomFromPattern } from './random-string';
