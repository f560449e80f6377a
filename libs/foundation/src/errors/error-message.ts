/** The message of anything thrown: an Error's `message`, anything else as text (no stack traces). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
