export { parseImageReference, ImageReferenceError, type ImageInfo, type ImageReferenceOptions } from './reference';
export {
  extractImages,
  imagesAsJson,
  ImageExtractionError,
  type ContainerImageInfo,
  type ImageInfos,
  type ImageExtractorConfig,
  type ExtractImagesOptions,
} from './extract';
