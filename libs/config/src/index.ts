// Shared configuration helpers for the Nest modules' options.
export { validateOptions } from './validate-options';
// The install name and every name derived from it.
export {
  DEFAULT_INSTALL_NAME,
  KYVERNO_INSTALL_NAME,
  MAX_INSTALL_NAME_LENGTH,
  installNameProblem,
  installNames,
  tlsSecretNames,
  type InstallNames,
  type LabelName,
} from './install-names';
// Configuration from environment variables.
export {
  describeValidationErrors,
  readEnvironment,
  type EnvironmentTable,
  type KyvernoFlagTable,
  type VariableType,
} from './environment';
// The TLS versions and cipher suites of every HTTPS endpoint.
export { SERVING_TLS_OPTIONS } from './serving-tls';
