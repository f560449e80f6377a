/**
 * The normalized image reference Kyverno reports for a container (its ImageInfo string):
 * `registry/path:tag`, or `registry/path@digest`; Docker Hub is `docker.io` and the tag defaults
 * to `latest`. Unparseable input is returned unchanged.
 */
export function normalizedImageReference(image: string): string {
  if (image === '') return image;
  const [namePart = '', digest] = image.split('@', 2) as [string, string | undefined];
  const lastSlash = namePart.lastIndexOf('/');
  const lastColon = namePart.lastIndexOf(':');
  const hasTag = lastColon > lastSlash;
  const name = hasTag ? namePart.slice(0, lastColon) : namePart;
  const tag = hasTag ? namePart.slice(lastColon + 1) : 'latest';
  const firstSlash = name.indexOf('/');
  const first = firstSlash >= 0 ? name.slice(0, firstSlash) : '';
  const hasRegistry = firstSlash >= 0 && (first.includes('.') || first.includes(':') || first === 'localhost');
  const registry = hasRegistry ? first : 'docker.io';
  const path = hasRegistry ? name.slice(firstSlash + 1) : name;
  if (path === '') return image;
  return digest ? `${registry}/${path}@${digest}` : `${registry}/${path}:${tag}`;
}
