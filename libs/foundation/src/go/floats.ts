/**
 * Go's text forms of a float64 (and one of float32). Every JSON number Go decodes into
 * `interface{}` is a float64, so these are what Kyverno prints for numbers from policies and
 * from re-decoded values; Kubernetes' own integers (int64) print as plain digits instead.
 */

function special(n: number): string | undefined {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return '+Inf';
  if (n === -Infinity) return '-Inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  return undefined;
}

/** Shortest round-trip digits and decimal exponent of |n|: 1234.5 → { mantissa: "1.2345", exponent: 3 }. */
function shortestExponential(n: number): { mantissa: string; exponent: number } {
  const text = Math.abs(n).toExponential();
  const e = text.indexOf('e');
  return { mantissa: text.slice(0, e), exponent: Number(text.slice(e + 1)) };
}

/** Go writes at least two exponent digits and always a sign: `e+06`, `e-05`. */
function goExponent(exponent: number): string {
  return `${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
}

/**
 * `fmt.Sprint(f)` / `%v`, which is `strconv.FormatFloat(f, 'g', -1, 64)`: shortest digits, in
 * exponent form when the decimal exponent is below -4 or at least 6 (the shortest 'g' format
 * decides with precision 6), so 1e6 is `1e+06` and 123456 stays `123456`.
 */
export function goFloatV(n: number): string {
  const text = special(n);
  if (text !== undefined) return text;
  const { mantissa, exponent } = shortestExponential(n);
  if (exponent < -4 || exponent >= 6) return `${n < 0 ? '-' : ''}${mantissa}e${goExponent(exponent)}`;
  return String(n); // JavaScript prints these magnitudes in plain notation with the same shortest digits
}

/** `strconv.FormatFloat(f, 'E', -1, 64)`: `5E+00`, `1.25E-01`. */
export function goFloatE(n: number): string {
  const text = special(n);
  if (text === '0' || text === '-0') return `${text}E+00`;
  if (text !== undefined) return text;
  const { mantissa, exponent } = shortestExponential(n);
  return `${n < 0 ? '-' : ''}${mantissa}E${goExponent(exponent)}`;
}

/** `fmt.Sprintf("%f", f)`: six decimals, never an exponent. */
export function goFloatF(n: number): string {
  if (Math.abs(n) >= 1e21) return `${BigInt(n).toString()}.000000`;
  return n.toFixed(6);
}

/**
 * A float64 as encoding/json writes it: shortest digits, exponent form only below 1e-6 or from 1e21,
 * with the exponent's leading zero removed (`1e-7`, `1e+21`). That is exactly JavaScript's
 * `Number#toString`, except that Go keeps the sign of negative zero.
 */
export function goJsonNumber(n: number): string {
  return Object.is(n, -0) ? '-0' : String(n);
}

/** `strconv.FormatFloat(f, 'f', -1, 32)`: the shortest digits that read back as the same float32, no exponent. */
export function goFloat32F(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  const f32 = Math.fround(value);
  const text = special(f32);
  if (text !== undefined) return text;
  for (let precision = 1; precision <= 9; precision++) {
    const digits = f32.toPrecision(precision);
    if (Math.fround(Number(digits)) === f32) return plainDecimal(digits);
  }
  return plainDecimal(f32.toPrecision(9));
}

/** Expands "1.5e+3" / "1e-7" into "1500" / "0.0000001". */
function plainDecimal(text: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/.exec(text);
  if (!match) return text;
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  const digits = whole + fraction;
  const point = whole.length + Number(exponent);
  let body: string;
  if (point <= 0) body = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) body = digits + '0'.repeat(point - digits.length);
  else body = `${digits.slice(0, point)}.${digits.slice(point)}`;
  body = body.replace(/^0+(?=\d)/, '');
  if (body.includes('.')) body = body.replace(/\.?0+$/, '');
  return `${sign}${body}`;
}
