// Helpers for specs of the engine and of code built on it: fixtures, fakes and short-hands.
export * from './conditions';
export * from './generate';
export * from './policy-validation';
export * from './pss';
export * from './signing';
export * from './image-verification';
