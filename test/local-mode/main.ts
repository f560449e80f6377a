/** Entry of `npm run sign-image` (see sign-image.ts). */
import { parseSignImageArgs, signImage, SignImageError } from './sign-image';

async function main(): Promise<void> {
  const args = parseSignImageArgs(process.argv.slice(2), process.cwd());
  await signImage(args, (line) => process.stdout.write(`${line}\n`));
}

main().catch((error: unknown) => {
  const message =
    error instanceof SignImageError
      ? error.message
      : error instanceof Error
        ? (error.stack ?? error.message)
        : String(error);
  process.stderr.write(`sign-image: ${message}\n`);
  process.exit(1);
});
