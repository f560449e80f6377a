// Go's text formats Kyverno's output inherits: JSON, `%v` / `%T`, float text, string order.
export { goFloat32F, goFloatE, goFloatF, goFloatV, goJsonNumber } from './floats';
export { goJson, goJsonWithout, type GoJsonOmissions } from './json';
export { compareCodePoints, goQuote, sortGoOrder } from './strings';
export { goIntText, goTypeName, goValueText, isInt64, type NumberOrigin } from './values';
