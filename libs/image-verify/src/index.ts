// @edict/image-verify: Cosign, Sigstore bundle and Notary verification of container images, shared by
// classic verifyImages rules and ImageValidatingPolicies. Pure: registries are reached through OciReader.
export {};
