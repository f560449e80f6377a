export {
  validateAdmission,
  blocks,
  type AdmissionOptions,
  type AfterAdmission,
  type ValidationOutcome,
} from './validate-admission';
