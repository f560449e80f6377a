/**
 * Go's text forms of JSON leaf values, as k8s-manifest-sigstore prints them: candidate manifests are
 * ranked by comparing `fmt.Sprintf("%v", v)` strings and type mismatches are reported with
 * `fmt.Sprintf("(type: %T) %s", v, v)`. JSON numbers are float64 on the Go side.
 */
export type Leaf = string | number | boolean;

/** `%v` of a float64: shortest digits, exponent form below 1e-4 or from 1e21 (`1e-05`, `1e+21`). */
export function goFloat(value: number): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '-Inf';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const [mantissa, exponentText] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 21) {
    const sign = exponent < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  // Within this range JavaScript never uses the exponent form either.
  return String(value);
}

/** `%v` of a leaf. */
export function goValue(value: Leaf): string {
  return typeof value === 'number' ? goFloat(value) : String(value);
}

/** Go's dynamic type name of a decoded JSON leaf. */
export function goTypeName(value: Leaf): string {
  if (typeof value === 'string') return 'string';
  return typeof value === 'number' ? 'float64' : 'bool';
}

/** `(type: %T) %s`: `%s` of a non-string prints Go's `%!s(T=v)` marker. */
export function goTypedString(value: Leaf): string {
  const type = goTypeName(value);
  const text = typeof value === 'string' ? value : `%!s(${type}=${goValue(value)})`;
  return `(type: ${type}) ${text}`;
}

/** `json.Marshal` escapes HTML-significant characters and the JavaScript line separators. */
export function goJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
