export * from './types';
export * from './json';
export { yamlToJson, YamlJsonError } from './yaml-json';
