export * from './types';
export * from './json';
