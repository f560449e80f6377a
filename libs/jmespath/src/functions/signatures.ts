import {
  TYPE_ANY,
  TYPE_ARRAY,
  TYPE_BOOLEAN,
  TYPE_NUMBER,
  TYPE_OBJECT,
  TYPE_STRING,
  type InputSignature,
} from '@jmespath-community/jmespath';

/** Shorthands for argument specs (one entry per argument). */
export const str: InputSignature = { types: [TYPE_STRING] };
export const num: InputSignature = { types: [TYPE_NUMBER] };
export const any: InputSignature = { types: [TYPE_ANY] };
export const arr: InputSignature = { types: [TYPE_ARRAY] };
export const obj: InputSignature = { types: [TYPE_OBJECT] };
export const bool: InputSignature = { types: [TYPE_BOOLEAN] };
export const strOrNum: InputSignature = { types: [TYPE_STRING, TYPE_NUMBER] };
export const objOrArr: InputSignature = { types: [TYPE_OBJECT, TYPE_ARRAY] };
