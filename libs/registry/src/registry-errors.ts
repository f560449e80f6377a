/** Why image data could not be fetched; the message always names the image. */
export class RegistryError extends Error {
  override name = 'RegistryError';
  constructor(
    readonly image: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`image ${image}: ${detail}`, options);
  }
}

/** The registry has no such manifest (or repository). */
export class ImageNotFoundError extends RegistryError {
  override name = 'ImageNotFoundError';
}

/** The registry wants credentials that are missing or were refused. */
export class RegistryAuthError extends RegistryError {
  override name = 'RegistryAuthError';
}

/** Bad credentials input (a Secret, a provider the policy names). */
export class RegistryCredentialsError extends Error {
  override readonly name = 'RegistryCredentialsError';
}
