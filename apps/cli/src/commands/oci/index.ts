/**
 * `edict oci push|pull`: Kyverno's `kyverno oci` commands, which push policies to an OCI registry
 * as an image and pull them back into a folder.
 */
import { Command } from 'commander';
import { errorMessage } from '@edict/foundation';
import type { CommandIO } from '../io';
import { ociSession, type OciSessionFactory } from './oci-access';
import { ociPull } from './oci-pull';
import { ociPush } from './oci-push';

const IMAGE_HELP = 'image reference to push to or pull from';
const INSECURE_HELP =
  'plain HTTP and no TLS verification for a registry that is not on loopback (loopback registries get plain HTTP anyway)';

/** Adds `oci` with `push` and `pull`; errors print as Kyverno's (`Error: ...`) and exit 1. */
export function registerOciCommand(
  program: Command,
  io: CommandIO,
  result: { code: number },
  session: OciSessionFactory = ociSession,
): void {
  const run = async (action: () => Promise<void>) => {
    try {
      await action();
      result.code = 0;
    } catch (error) {
      io.err(`Error: ${errorMessage(error)}\n`);
      result.code = 1;
    }
  };

  const oci = program
    .command('oci')
    .description('Pulls/pushes images that include policie(s) from/to OCI registries.')
    .addHelpText(
      'after',
      '\nExamples:\n  # Push policy to an OCI image from a given policy file\n  edict oci push -p policy.yaml -i <imgref>\n\n  # Pull policy from an OCI image and save it to the specific directory\n  edict oci pull -i <imgref> -d policies\n',
    )
    .action(() => oci.help());

  oci
    .command('push')
    .description('Push policie(s) that are included in an OCI image to OCI registry.')
    .argument('[policies]', 'path to policie(s), in place of --policy')
    .requiredOption('-i, --image <image>', IMAGE_HELP)
    .option('-p, --policy <path>', 'path to policie(s)')
    .option('--insecure', INSECURE_HELP, false)
    .addHelpText(
      'after',
      '\nExamples:\n  # Push policy to an OCI image from a given policy file\n  edict oci push -p policy.yaml -i <imgref>\n\n  # Push multiple policies to an OCI image from a given directory that includes policies\n  edict oci push -p policies/ -i <imgref>\n',
    )
    .action((path: string | undefined, options: { image: string; policy?: string; insecure: boolean }) =>
      run(() =>
        ociPush(
          { image: options.image, policy: options.policy ?? path ?? '', insecure: options.insecure },
          io,
          session,
        ),
      ),
    );

  oci
    .command('pull')
    .description(
      'Pulls policie(s) that are included in an OCI image from OCI registry and saves them to a local directory.',
    )
    .argument('[dir]', 'path to a directory, in place of --directory')
    .requiredOption('-i, --image <image>', IMAGE_HELP)
    .option('-d, --directory <dir>', 'path to a directory', '.')
    .option('--insecure', INSECURE_HELP, false)
    .addHelpText(
      'after',
      '\nExample:\n  # Pull policy from an OCI image and save it to the specific directory\n  edict oci pull -i <imgref> -d policies\n',
    )
    .action((dir: string | undefined, options: { image: string; directory: string; insecure: boolean }) =>
      run(() =>
        ociPull({ image: options.image, directory: dir ?? options.directory, insecure: options.insecure }, io, session),
      ),
    );
}
