export { checkCelTypes, formatCelIssues, type CelTypedVariables, type CelTypeIssue } from './check-types';
export { DYN, schemaType, type CelCheckedType, type SchemaDefinitions } from './schema-types';
