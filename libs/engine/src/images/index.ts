export {
  extractImages,
  imagesAsJson,
  ImageExtractionError,
  type ContainerImageInfo,
  type ImageInfos,
  type ImageExtractorConfig,
  type ExtractImagesOptions,
} from './extract';
