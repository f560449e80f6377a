export { mutateAdmission, type MutationOutcome } from './mutate-admission';
