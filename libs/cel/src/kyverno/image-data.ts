import type { Environment } from '@marcbachmann/cel-js';
import { missingPort, type KyvernoCalls } from './calls';
import type { CelImageDataPort } from './ports';
import { fromDecodedJson } from './values';
import type { JsonObject } from '@edict/foundation';

export const IMAGE_DATA_TYPE = 'imagedata.Context';

export class CelImageDataContext {
  constructor(
    readonly calls: KyvernoCalls,
    readonly port: CelImageDataPort | undefined,
  ) {}
}

/**
 * Kyverno's imagedata library, on the variable `image`: `image.GetMetadata(ref)` (and
 * `getMetadata`) gives `image`, `resolvedImage`, `registry`, `repository`, `identifier`, `tag`,
 * `digest`, `imageIndex`, `manifest` and `config` of the image in its registry.
 */
export function registerImageData(env: Environment): void {
  env.registerType(IMAGE_DATA_TYPE, CelImageDataContext);
  for (const name of ['GetMetadata', 'getMetadata']) {
    env.registerFunction(`${IMAGE_DATA_TYPE}.${name}(string): dyn`, (i: CelImageDataContext, reference: string) => {
      if (!i.port) throw missingPort('image', `cannot fetch the metadata of ${reference}`);
      const port = i.port;
      const answer = i.calls.run(
        'failed to get image data',
        (call) => port.get(reference, call),
        undefined,
        `image:${reference}`,
      );
      const convert = (data: JsonObject): unknown => fromDecodedJson(data);
      return answer instanceof Promise ? answer.then(convert) : convert(answer);
    });
  }
}
