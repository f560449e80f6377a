import type { Environment } from '@marcbachmann/cel-js';
import type { AstNode, CelContext, CelEvaluator } from '../language/internals';
import { celError } from '../libraries/errors';

/**
 * What Kyverno's image verification library (pkg/cel/libs/imageverify) calls for one policy on one
 * request: the ImageValidatingPolicy engine supplies it in the activation under
 * IMAGE_VERIFIER_KEY. Methods may answer with a Promise (registry round trips).
 */
export interface CelImageVerifier {
  /** How many of the attestors (values of `attestors`) verify a signature of the image. */
  verifyImageSignatures(image: string, attestors: readonly unknown[]): bigint | Promise<bigint>;
  /** How many of the attestors verify the attestation (a name from `attestations`) of the image. */
  verifyAttestationSignatures(
    image: string,
    attestation: string,
    attestors: readonly unknown[],
  ): bigint | Promise<bigint>;
  /** The payload of an attestation verified before by verifyAttestationSignatures. */
  extractPayload(image: string, attestation: string): unknown;
  /** The image's data (as `image.GetMetadata`). */
  getImageData(image: string): unknown;
}

/** The activation key of the CelImageVerifier (not a CEL identifier anyone declares). */
export const IMAGE_VERIFIER_KEY = '__edict_image_verifier__';

const FUNCTIONS: Record<string, string> = {
  verifyImageSignatures: 'verifyImageSignatures(string, list<dyn>): int',
  verifyAttestationSignatures: 'verifyAttestationSignatures(string, string, list<dyn>): int',
  extractPayload: 'extractPayload(string, string): dyn',
  getImageData: 'getImageData(string): dyn',
};

/**
 * The ImageValidatingPolicy environment: `images` (extracted image lists by name), `attestors`
 * (by name), `attestations` (name -> name) and Kyverno's four functions, typed as Kyverno declares
 * them. cel-js hands a function only its arguments, so each call node is given an evaluation of
 * its own that finds the request's CelImageVerifier in the activation (see rewriteImageVerifyCalls).
 */
export function registerImageVerify(env: Environment): void {
  env.registerVariable('images', 'map<string, list<string>>');
  env.registerVariable('attestors', 'map<string, dyn>');
  env.registerVariable('attestations', 'map<string, string>');
  for (const [name, signature] of Object.entries(FUNCTIONS)) {
    // Declared async: registry round trips answer with a Promise, and cel-js makes the operators and
    // macros around a call await it only when the declaration says so.
    env.registerFunction(
      signature,
      () => {
        throw celError(`${name}: image verification is not available here`);
      },
      { async: true },
    );
  }
}

/** Points every call of the library's functions at the activation's CelImageVerifier. */
export function rewriteImageVerifyCall(node: AstNode): void {
  if ((node.op as string) !== 'call') return;
  const [name, args] = node.args as unknown as [string, AstNode[]];
  if (!(name in FUNCTIONS)) return;
  node.setMeta('evaluate', (evaluator: CelEvaluator, _ast: AstNode, ctx: CelContext) => {
    const values = args.map((arg) => evaluator.run(arg, ctx));
    const call = (resolved: unknown[]): unknown => {
      const verifier = (ctx as CelContext & { getValue(key: string): unknown }).getValue(IMAGE_VERIFIER_KEY) as
        CelImageVerifier | undefined;
      if (!verifier) throw celError(`${name}: image verification is not available here`);
      const method = verifier[name as keyof CelImageVerifier] as (...parameters: unknown[]) => unknown;
      return method.apply(verifier, resolved);
    };
    return values.some((value) => value instanceof Promise) ? Promise.all(values).then(call) : call(values);
  });
}
