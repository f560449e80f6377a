// Shared configuration helpers for the Nest modules' options.
export { validateOptions } from './validate-options';
