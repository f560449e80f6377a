// Test helpers for @edict/cel-policies: policy objects and evaluation inputs.
export {
  generatingPolicy,
  imageValidatingPolicy,
  inputFor,
  matching,
  mutatingPolicy,
  pod,
  validatingPolicy,
} from './fixtures';
