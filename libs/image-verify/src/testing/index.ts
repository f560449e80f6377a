// @edict/image-verify/testing: keys, signers and trust material for specs and the local signing tool.
export {};
