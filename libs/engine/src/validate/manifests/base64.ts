/**
 * Go's `base64.StdEncoding.DecodeString`: strict padding and alphabet (Node's decoder silently skips
 * junk), with carriage returns and newlines ignored. Errors read as Go's do.
 */
const ALPHABET = /^[A-Za-z0-9+/]$/;

export function decodeStdBase64(text: string): Buffer {
  const clean = text.replace(/[\r\n]/g, '');
  const fail = (index: number): never => {
    throw new Error(`illegal base64 data at input byte ${index}`);
  };
  let index = 0;
  for (; index < clean.length; index++) {
    if (!ALPHABET.test(clean[index]!)) break;
  }
  const dataLength = index;
  // Padding may only complete the last quantum: `xx==` or `xxx=`.
  const padding = clean.length - dataLength;
  if (padding > 0) {
    if (padding > 2 || /[^=]/.test(clean.slice(dataLength))) fail(clean.slice(dataLength).search(/[^=]/) + dataLength);
    const remainder = dataLength % 4;
    if (remainder < 2 || remainder + padding !== 4) fail(dataLength);
  } else if (dataLength % 4 === 1) {
    fail(dataLength - 1);
  } else if (dataLength % 4 !== 0) {
    fail(dataLength);
  }
  return Buffer.from(clean, 'base64');
}
