// Test support for specs of this lib and its users: admission attributes built from an object.
export { attributesFor, namespace } from './attributes';
