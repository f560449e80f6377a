export {
  imagePolicyMutation,
  imagePolicyValidation,
  type ImagePolicyAdmissionOptions,
  type ImagePolicyEvaluation,
  type ImagePolicyOutcome,
} from './image-policy-admission';
