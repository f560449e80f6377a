export { loadContextEntries, ContextEntryError } from './load-context';
export type { ContextLoadOptions } from './load-context';
