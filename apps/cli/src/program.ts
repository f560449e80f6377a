import { Command, InvalidArgumentError, Option } from 'commander';
import { applyCommand } from './commands/apply';
import type { CommandIO } from './commands/io';
import { testCommand, type OutputFormat } from './commands/test';
import { cliRegistry, type CliRegistryFactory } from './commands/registry';
import { registerJpCommand } from './commands/jp';
import { registerDocsCommand } from './commands/docs';
import { registerCreateCommand } from './commands/create';
import { registerFixCommand } from './commands/fix';
import { registerMigrateCommand } from './commands/migrate';
import { registerOciCommand } from './commands/oci';
import { registerCompletionCommand } from './commands/completion';
import { parseQuantity, quantityToNumber } from '@edict/foundation';
import {
  DEFAULT_MAX_FILE_SIZE,
  DEFAULT_TEST_CASE_SELECTOR,
  setMaxFileSize,
  type EngineFactory,
} from '@edict/kyverno-test';
import type { IvpolPorts } from '@edict/cel-policies';
import { version as packageVersion } from '../../../package.json';

/** Commander collects repeated and comma-separated list options, as Kyverno's string-slice flags do. */
const collect = (value: string, previous: string[] = []) => [
  ...previous,
  ...value.split(',').filter((item) => item !== ''),
];

function integer(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed)) throw new InvalidArgumentError('expected an integer.');
  return parsed;
}

/** A size in bytes or as a quantity (`10Mi`); 0 lifts the cap. */
function fileSize(value: string): number {
  const quantity = parseQuantity(value.trim());
  const bytes = quantity ? quantityToNumber(quantity) : NaN;
  if (!Number.isInteger(bytes) || bytes < 0)
    throw new InvalidArgumentError('expected a size in bytes or a quantity such as 10Mi (0: no limit).');
  return bytes;
}

/** The largest input file read: policies, resources, test, values, user info and exception files. */
const maxFileSizeOption = () =>
  new Option('--max-file-size <size>', 'largest input file read, in bytes or as a quantity (0: no limit)')
    .env('EDICT_MAX_FILE_SIZE')
    .argParser(fileSize)
    .default(DEFAULT_MAX_FILE_SIZE, '10Mi');

/** `--registry`: ImageValidatingPolicies read image registries (otherwise the CLI reads none). */
const registryOption = () =>
  new Option(
    '--registry',
    'let ImageValidatingPolicies read image registries (local docker credentials; EDICT_REGISTRY_ALLOWED_ADDRESSES, EDICT_INSECURE_REGISTRIES)',
  ).default(false);

/** Runs a command with the registry access `--registry` asks for, released afterwards. */
async function withRegistry(
  wanted: boolean,
  factory: CliRegistryFactory,
  run: (images: IvpolPorts | undefined) => Promise<number>,
): Promise<number> {
  if (!wanted) return run(undefined);
  const registry = factory();
  try {
    return await run(registry.ports);
  } finally {
    registry.close();
  }
}

/** The first Kyverno apply flag given that Edict cannot honour: failing beats ignoring it. */
function unsupportedApplyFlag(options: {
  gitBranch?: string;
  stdin?: boolean;
  table?: boolean;
  detailedResults?: boolean;
  generateExceptions?: boolean;
  generatedExceptionTtl?: string;
}): string | undefined {
  if (options.gitBranch !== undefined) return '--git-branch (git sources)';
  if (options.stdin) return '--stdin';
  if (options.table) return '--table';
  if (options.detailedResults) return '--detailed-results';
  if (options.generateExceptions || options.generatedExceptionTtl !== undefined) return '--generate-exceptions';
  return undefined;
}

/**
 * The `edict` command line. Each action stores its exit code in `result.code` rather than exiting, so
 * the program can run in-process (tests) as well as from main.
 */
export function buildProgram(
  io: CommandIO,
  result: { code: number },
  engineFactory: EngineFactory,
  registry: CliRegistryFactory = cliRegistry,
): Command {
  const program = new Command('edict')
    .description('Runs Kyverno policies and Kyverno CLI tests with the Edict engine')
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .exitOverride()
    .showHelpAfterError()
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  # Run the Kyverno CLI tests (kyverno-test.yaml) below a folder',
        '  edict test ./policies',
        '',
        '  # Apply policies to resources and print a policy report',
        '  edict apply ./policies --resource ./manifests --policy-report',
        '',
        '  # Push policies to an OCI registry, and pull them into a folder',
        '  edict oci push -p ./policies -i registry.example.com/policies:v1',
        '  edict oci pull -i registry.example.com/policies:v1 -d ./pulled',
        '',
        '  # Load shell completion',
        '  source <(edict completion bash)',
        '',
        'Every command has its own examples: edict <command> --help.',
        '',
      ].join('\n'),
    );

  // Kyverno's `kyverno version` lines. Edict's build records no time or commit (the image build is
  // reproducible), so those print `---`, as Kyverno's do when its build did not record them.
  program
    .command('version')
    .description('Prints the version of the Edict CLI')
    .addHelpText('after', '\nExample:\n  edict version\n')
    .action(() => {
      io.out(`Version: ${packageVersion}\nTime: ---\nGit commit ID: ---\n`);
    });

  program
    .command('test')
    .description('Run Kyverno CLI test files (kyverno-test.yaml) found below the given paths')
    .argument('<paths...>', 'test files or folders to search')
    .addOption(
      new Option('-o, --output <format>', 'output format').choices(['table', 'json', 'junit']).default('table'),
    )
    .option('--detailed-results', 'add the rule message to the table', false)
    .option('--strict', 'use the strict verdict instead of the Kyverno-compatible one', false)
    .option('--fail-only', 'show failing checks only', false)
    .option('--remove-color', 'accepted for Kyverno compatibility (output is never coloured)', false)
    .option('-f, --file-name <name>', 'test file name looked for below the folders', 'kyverno-test.yaml')
    .option(
      '-t, --test-case-selector <selector>',
      'check only the results selected, as "policy=<p>,rule=<r>,resource=<name>" (wildcards allowed)',
      DEFAULT_TEST_CASE_SELECTOR,
    )
    .option('--require-tests', 'fail when no test file is found', false)
    .option('-b, --git-branch <branch>', 'not supported: Edict reads tests from local folders only')
    .addOption(registryOption())
    .addOption(maxFileSizeOption())
    .addHelpText(
      'after',
      '\nExamples:\n  edict test ./policies\n  edict test . --test-case-selector "policy=require-labels,rule=*,resource=bad-*" --detailed-results\n  edict test . --file-name my-test.yaml --require-tests --output junit > results.xml\n',
    )
    .action(
      async (
        paths: string[],
        options: {
          output: OutputFormat;
          detailedResults: boolean;
          strict: boolean;
          failOnly: boolean;
          registry: boolean;
          maxFileSize: number;
          fileName: string;
          testCaseSelector: string;
          requireTests: boolean;
          gitBranch?: string;
        },
      ) => {
        setMaxFileSize(options.maxFileSize);
        result.code = await withRegistry(options.registry, registry, (images) =>
          testCommand(paths, options, io, engineFactory, images),
        );
      },
    );

  program
    .command('apply')
    .description('Apply policies to resources and report the results like `kyverno apply`')
    .argument('<policies...>', 'policy files or folders')
    .option('-r, --resource <files>', 'resource files or folders (repeatable, comma-separated)', collect, [])
    .option('--resources <files>', 'alias of --resource', collect, [])
    .option(
      '--target-resource <files>',
      'target resource files of mutate-existing policies (repeatable, comma-separated)',
      collect,
      [],
    )
    .option('--target-resources <files>', 'alias of --target-resource (files or folders)', collect, [])
    .option('--exceptions-with-resources', 'also read policy exceptions from the resource files', false)
    .option('--warn-no-pass', 'exit with the warn exit code when no resource passed a policy', false)
    .addOption(
      new Option('--output-format <format>', 'policy report format (with --policy-report)')
        .choices(['yaml', 'json'])
        .default('yaml'),
    )
    .option(
      '--continue-on-fail',
      'accepted for Kyverno compatibility (Edict always goes on with the next resource)',
      false,
    )
    .option('-b, --git-branch <branch>', 'not supported: Edict reads policies from local files only')
    .option('-i, --stdin', 'not supported: pass files')
    .option('-t, --table', 'not supported: use --policy-report')
    .option('--detailed-results', 'not supported: use --policy-report')
    .option('--generate-exceptions', 'not supported: write PolicyExceptions by hand')
    .option('--generated-exception-ttl <duration>', 'not supported (with --generate-exceptions)')
    .option('-f, --values-file <file>', 'values file for policy variables')
    .option(
      '-s, --set <values>',
      'variables as key=value (repeatable, comma-separated), over the values file',
      collect,
      [],
    )
    .option('-u, --userinfo <file>', 'admission user info (roles, cluster roles, user)')
    .option('-e, --exceptions <files>', 'policy exception files (repeatable, comma-separated)', collect, [])
    .option('--exception <files>', 'alias of --exceptions', collect, [])
    .option('-p, --policy-report', 'print a policy report instead of the summary', false)
    .option('-o, --output <path>', 'write mutated resources to this file or folder')
    .option('--warn-exit-code <code>', 'exit code when only warnings are found', integer, 0)
    .option('--audit-warn', 'report failures of Audit policies as warnings', false)
    .option('--remove-color', 'accepted for Kyverno compatibility (output is never coloured)', false)
    .option('-c, --cluster', 'read the resources from the cluster of the kubeconfig context', false)
    .option('-n, --namespace <namespace>', 'with --cluster, only resources of this namespace')
    .option('--kubeconfig <file>', 'with --cluster, the kubeconfig file (default: $KUBECONFIG, ~/.kube/config)')
    .option('--context <name>', 'with --cluster, the kubeconfig context to use')
    .addOption(registryOption())
    .addOption(maxFileSizeOption())
    .addHelpText(
      'after',
      '\nExamples:\n  edict apply policy.yaml --resource pods.yaml\n  edict apply policies/ --cluster --namespace team-a --policy-report --output-format json\n  edict apply policy.yaml -r deploy.yaml --values-file values.yaml --warn-exit-code 3 --warn-no-pass\n',
    )
    .action(
      async (
        policies: string[],
        options: {
          resource: string[];
          resources: string[];
          targetResource: string[];
          targetResources: string[];
          exceptionsWithResources: boolean;
          warnNoPass: boolean;
          outputFormat: 'yaml' | 'json';
          gitBranch?: string;
          stdin?: boolean;
          table?: boolean;
          detailedResults?: boolean;
          generateExceptions?: boolean;
          generatedExceptionTtl?: string;
          valuesFile?: string;
          set: string[];
          userinfo?: string;
          exceptions: string[];
          exception: string[];
          policyReport: boolean;
          output?: string;
          warnExitCode: number;
          auditWarn: boolean;
          cluster: boolean;
          namespace?: string;
          kubeconfig?: string;
          context?: string;
          registry: boolean;
          maxFileSize: number;
        },
      ) => {
        setMaxFileSize(options.maxFileSize);
        const unsupported = unsupportedApplyFlag(options);
        if (unsupported) {
          io.err(`Error: ${unsupported} is not supported by edict apply (see docs/cli.md)\n`);
          result.code = 1;
          return;
        }
        result.code = await withRegistry(options.registry, registry, (images) =>
          applyCommand(
            policies,
            {
              ...options,
              resource: [...options.resource, ...options.resources],
              targetResources: [...options.targetResource, ...options.targetResources],
              exceptions: [...options.exceptions, ...options.exception],
            },
            io,
            engineFactory,
            new Date(),
            images,
          ),
        );
      },
    );

  registerJpCommand(program, io, result, maxFileSizeOption);
  registerDocsCommand(program, io, result);
  registerCreateCommand(program, io, result);
  registerFixCommand(program, io, result);
  registerMigrateCommand(program, io, result);
  registerOciCommand(program, io, result);
  registerCompletionCommand(program, io, result);

  return program;
}
