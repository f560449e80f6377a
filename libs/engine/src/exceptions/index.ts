export { exceptionKey, matchingExceptions } from './match-exceptions';
