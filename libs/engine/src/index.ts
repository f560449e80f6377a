// The engine's public surface. Apps import only from '@edict/engine'.
export * from './json';
export * from './policy/types';
export * from './engine/types';
export * from './engine/loaders';
export { wildcardMatch, hasWildcard } from './values/wildcard';
