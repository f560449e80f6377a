import type { Environment } from '@marcbachmann/cel-js';
import { registerGlobalContext, GLOBAL_CONTEXT_TYPE } from './global-context';
import { registerGzip } from './gzip';
import { registerHash } from './hash';
import { HTTP_TYPE, registerHttp } from './http';
import { registerImage } from './image';
import { IMAGE_DATA_TYPE, registerImageData } from './image-data';
import { registerJson } from './json';
import { registerKyvernoMath } from './math';
import { KYVERNO_CEL_LIMITS } from './ports';
import { registerRandom } from './random';
import { registerRegexExtension } from './regex-ext';
import { registerResource, RESOURCE_TYPE } from './resource';
import { registerTime } from './time';
import { registerTransform } from './transform';
import { registerUser } from './user';
import { registerX509 } from './x509';
import { registerYaml } from './yaml';

/**
 * Kyverno's CEL libraries, as its ValidatingPolicy compiler declares them (pkg/cel/policies/vpol/
 * compiler): the variables `http`, `resource`, `globalContext` and `image` (image data), whose
 * values kyvernoActivation() makes from the ports, the constants `json` and `yaml`, and the
 * functions of the image, user, hash, math, random, x509, time, transform and gzip libraries.
 * A namespaced policy gets the resource overloads without a namespace argument.
 */
export function registerKyverno(env: Environment, options: { readonly namespaced: boolean }): void {
  const limits = KYVERNO_CEL_LIMITS;
  registerHttp(env);
  registerResource(env, options.namespaced);
  registerGlobalContext(env);
  registerImageData(env);
  env.registerVariable('http', HTTP_TYPE);
  env.registerVariable('resource', RESOURCE_TYPE);
  env.registerVariable('globalContext', GLOBAL_CONTEXT_TYPE);
  env.registerVariable('image', IMAGE_DATA_TYPE);
  registerImage(env);
  registerUser(env);
  registerHash(env);
  registerKyvernoMath(env);
  registerJson(env, limits);
  registerYaml(env, limits);
  registerRegexExtension(env);
  registerRandom(env, limits);
  registerX509(env, limits);
  registerTime(env);
  registerTransform(env);
  registerGzip(env, limits);
}
