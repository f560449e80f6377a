// @edict/native-policies: Kubernetes' own admission policies, evaluated as kube-apiserver does
// (match resources, match conditions, ValidatingAdmissionPolicy with bindings and params). Pure: it
// depends on @edict/foundation and @edict/cel only, so the in-memory API server can use it too.
export {};
