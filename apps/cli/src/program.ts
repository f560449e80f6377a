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
import { parseDurationNanos, parseQuantity, quantityToNumber } from '@edict/foundation';
import { DEFAULT_EXCEPTION_TTL_NANOS } from './apply/generate-exceptions';
import { readProcessStdin } from './apply/stdin';
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
  username?: string;
  password?: string;
}): string | undefined {
  if (options.gitBranch !== undefined) return '--git-branch (git sources)';
  if (options.username !== undefined) return '--username (git sources)';
  if (options.password !== undefined) return '--password (git sources)';
  return undefined;
}

/** A Go duration (`720h`, `1h30m`) in nanoseconds, as Kyverno's duration flags take it. */
function goDuration(value: string): bigint {
  const nanos = parseDurationNanos(value.trim());
  if (nanos === undefined) throw new InvalidArgumentError(`time: invalid duration ${JSON.stringify(value)}`);
  return nanos;
}

/** A count of at least 1. */
function positive(value: string): number {
  const parsed = integer(value);
  if (parsed < 1) throw new InvalidArgumentError('expected a positive integer.');
  return parsed;
}

/** A boolean flag that, as Kyverno's, also takes `=true`/`=false`. */
function boolean(value: string): boolean {
  if (/^(true|t|1)$/i.test(value)) return true;
  if (/^(false|f|0)$/i.test(value)) return false;
  throw new InvalidArgumentError('expected true or false.');
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
    .addOption(
      new Option('--output-format <format>', "Kyverno's name of --output (yaml: the JSON report as YAML)").choices([
        'table',
        'json',
        'yaml',
        'markdown',
        'junit',
      ]),
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
          outputFormat?: OutputFormat;
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
          testCommand(paths, { ...options, output: options.outputFormat ?? options.output }, io, engineFactory, images),
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
    .option('--username <name>', 'not supported: git sources are not read')
    .option('--password <password>', 'not supported: git sources are not read')
    .option(
      '-i, --stdin',
      'output for a pipe (no "Applying" line); "-" as the policy or resource path reads stdin',
      false,
    )
    .option('-t, --table', 'show the results in a table', false)
    .option('--detailed-results', 'with --table, add the rule message', false)
    .option('--generate-exceptions', 'print a PolicyException for each failure of a cluster policy', false)
    .addOption(
      new Option('--generated-exception-ttl <duration>', 'TTL label of the generated exceptions (0: none)')
        .argParser(goDuration)
        .default(DEFAULT_EXCEPTION_TTL_NANOS, '720h0m0s'),
    )
    .option('--json <files>', 'JSON payload files (instead of resources; repeatable, comma-separated)', collect, [])
    .option('--context-file <file>', 'Context file (objects and image data) for CEL policies')
    .option(
      '--parameter-resource <files>',
      'parameter objects of admission policies and ValidatingPolicies (repeatable, comma-separated)',
      collect,
      [],
    )
    .option(
      '--crd-paths <files>',
      'CustomResourceDefinition files whose kinds resolve (repeatable, comma-separated)',
      collect,
      [],
    )
    .option(
      '--cluster-wide-resources',
      'with --cluster, cluster-scoped resources (and with -n those of the namespace)',
      false,
    )
    .option('--batch-size <count>', 'with --cluster, objects per list request', positive, 100)
    .option('--concurrent <count>', 'with --cluster, list requests in flight at once', positive, 1)
    .addOption(
      new Option('--continue-on-error [bool]', 'with --cluster, leave out a resource type that cannot be listed')
        .argParser(boolean)
        .preset(true)
        .default(true),
    )
    .option('--show-performance', 'print how long reading the resources took', false)
    .option('-f, --values-file <file>', 'values file for policy variables')
    .option(
      '-s, --set <values>',
      'variables as key=value (repeatable, comma-separated), over the values file',
      collect,
      [],
    )
    .option('-u, --userinfo <file>', 'admission user info (roles, cluster roles, user)')
    .option('-e, --exception <files>', 'policy exception files (repeatable, comma-separated)', collect, [])
    .option('--exceptions <files>', 'alias of --exception', collect, [])
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
          username?: string;
          password?: string;
          stdin: boolean;
          table: boolean;
          detailedResults: boolean;
          generateExceptions: boolean;
          generatedExceptionTtl: bigint;
          json: string[];
          contextFile?: string;
          parameterResource: string[];
          crdPaths: string[];
          clusterWideResources: boolean;
          batchSize: number;
          concurrent: number;
          continueOnError: boolean;
          showPerformance: boolean;
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
              parameterResources: options.parameterResource,
              readStdin: io.readStdin ?? readProcessStdin,
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
