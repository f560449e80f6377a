import { describe, expect, it } from 'vitest';
import { goFloat32F, goFloatE, goFloatF, goFloatV, goJsonNumber } from './floats';

// Expected texts are what Go prints: strconv.FormatFloat's 'g' with the shortest precision switches
// to exponent form below 1e-4 and from 1e6 (it decides with precision 6); encoding/json's float
// encoder only below 1e-6 and from 1e21, and trims the exponent's leading zero.
describe('goFloatV: fmt %v of a float64', () => {
  it.each([
    [0, '0'],
    [-0, '-0'],
    [1, '1'],
    [-2, '-2'],
    [1.5, '1.5'],
    [0.1, '0.1'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [-2.5e-7, '-2.5e-07'],
    [1.5e-300, '1.5e-300'],
    [100000, '100000'],
    [123456, '123456'],
    [999999, '999999'],
    [1e6, '1e+06'],
    [1234567, '1.234567e+06'],
    [1234567.5, '1.2345675e+06'],
    [123456789, '1.23456789e+08'],
    [1e20, '1e+20'],
    [1e21, '1e+21'],
    [1e100, '1e+100'],
    [Infinity, '+Inf'],
    [-Infinity, '-Inf'],
    [NaN, 'NaN'],
  ])('%s → %s', (value, expected) => {
    expect(goFloatV(value)).toBe(expected);
  });
});

describe('goJsonNumber: encoding/json of a float64', () => {
  it.each([
    [0, '0'],
    [-0, '-0'],
    [1.5, '1.5'],
    [1e6, '1000000'],
    [123456789, '123456789'],
    [1e20, '100000000000000000000'],
    [1e21, '1e+21'],
    [0.000001, '0.000001'],
    [1e-7, '1e-7'],
    [-2.5e-7, '-2.5e-7'],
  ])('%s → %s', (value, expected) => {
    expect(goJsonNumber(value)).toBe(expected);
  });
});

describe("goFloatE: strconv.FormatFloat(f, 'E', -1, 64)", () => {
  it.each([
    [5, '5E+00'],
    [0.125, '1.25E-01'],
    [-1234.5, '-1.2345E+03'],
    [0, '0E+00'],
    [1e100, '1E+100'],
  ])('%s → %s', (value, expected) => {
    expect(goFloatE(value)).toBe(expected);
  });
});

describe('goFloatF: fmt %f', () => {
  it.each([
    [0.5, '0.500000'],
    [-1.25, '-1.250000'],
    [1e22, '10000000000000000000000.000000'],
  ])('%s → %s', (value, expected) => {
    expect(goFloatF(value)).toBe(expected);
  });
});

describe("goFloat32F: strconv.FormatFloat(f, 'f', -1, 32)", () => {
  it.each([
    [0.1, '0.1'],
    [1.5, '1.5'],
    [16777217, '16777216'],
    [1e21, '1000000000000000000000'],
    [1e-7, '0.0000001'],
    [-0, '-0'],
    [NaN, 'NaN'],
    [1e39, '+Inf'],
  ])('%s → %s', (value, expected) => {
    expect(goFloat32F(value)).toBe(expected);
  });
});
