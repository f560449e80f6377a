/** A problem the user can act on, reported as one line without a stack trace. */
export class LauncherError extends Error {
  override readonly name = 'LauncherError';
}

/**
 * Turns a failed listen into a clear LauncherError naming the port and the variable that moves it;
 * anything else is passed through.
 */
export function explainListenError(
  error: unknown,
  what: string,
  host: string,
  port: number,
  variable: string,
): unknown {
  const code = (error as { code?: unknown }).code;
  if (code === 'EADDRINUSE') {
    return new LauncherError(
      `${what}: port ${port} on ${host} is already in use (another \`npm start\`?). Stop that process or choose another port with ${variable}=<port>.`,
    );
  }
  if (code === 'EACCES') {
    return new LauncherError(
      `${what}: not allowed to listen on port ${port} on ${host}; choose another port with ${variable}=<port>.`,
    );
  }
  return error;
}
