export { exceptionKey, exceptionsForRule, matchingExceptions } from './match-exceptions';
