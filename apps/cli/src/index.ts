// The CLI's program, for the README's example spec (test/readme): the built CLI is main.ts.
export { buildProgram } from './program';
