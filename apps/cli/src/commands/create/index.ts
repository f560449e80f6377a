/**
 * `edict create exception|metrics-config|test|user-info|values`: Kyverno's `kyverno create`
 * (`cmd/cli/kubectl-kyverno/commands/create`), with its flags, defaults, documents and messages. Each
 * writes to stdout, or to the `-o` file.
 */
import { writeFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { errorMessage } from '@edict/foundation';
import type { CommandIO } from '../io';
import {
  renderException,
  renderMetricsConfig,
  renderTest,
  renderUserInfo,
  renderValues,
  type NamedValues,
  type ResourceFilter,
  type TestResultOptions,
  type ValuesPolicy,
} from './templates';

/** Cobra's string-slice flags: repeatable, each value split on commas. */
const slice = (value: string, previous: string[] = []) => [...previous, ...value.split(',')];
/** Cobra's string-array flags: repeatable, each value taken whole. */
const array = (value: string, previous: string[] = []) => [...previous, value];

/** Cobra's boolean flags: `-b`, `--background`, `--background=false`. */
function boolean(value: string | boolean): boolean {
  if (typeof value === 'boolean') return value;
  if (['true', '1', 't', 'T', 'TRUE', 'True'].includes(value)) return true;
  if (['false', '0', 'f', 'F', 'FALSE', 'False'].includes(value)) return false;
  throw new InvalidArgumentError(`strconv.ParseBool: parsing "${value}": invalid syntax (write --background=false)`);
}

const outputOption = () => new Option('-o, --output <path>', 'Output path (uses standard console output if not set)');

/** Writes a document to stdout, or to the `-o` file (created or truncated, as Go's os.Create). */
function emit(io: CommandIO, result: { code: number }, path: string | undefined, text: string): void {
  if (!path) {
    io.out(text);
    return;
  }
  try {
    writeFileSync(path, text);
  } catch (error) {
    fail(io, result, `open ${path}: ${errorMessage(error)}`);
  }
}

function fail(io: CommandIO, result: { code: number }, message: string): void {
  io.err(`Error: ${message}\n`);
  result.code = 1;
}

/** Cobra's `NoArgs` for a leaf command: an argument reads as an unknown sub-command. */
function noArgs(io: CommandIO, result: { code: number }, command: Command, args: readonly string[]): boolean {
  if (args.length === 0) return true;
  fail(io, result, `unknown command "${args[0]}" for "edict create ${command.name()}"`);
  return false;
}

function examples(...lines: [comment: string, example: string][]): string {
  return `\nExample:\n${lines.map(([comment, example]) => `  ${comment}\n  ${example}`).join('\n\n')}\n`;
}

/** `policy,rule-1,rule-2`: a policy and its rules (fewer than two parts: ignored, as Kyverno does). */
function parsePolicyRules(value: string): { policyName: string; ruleNames: string[] } | undefined {
  const parts = value.split(',');
  return parts.length < 2 ? undefined : { policyName: parts[0], ruleNames: parts.slice(1) };
}

/** `kind=Pod,name=test-*,namespace=ns,operation=CREATE`: a resource filter (a part without one `=` drops it). */
function parseResourceFilter(value: string): ResourceFilter | undefined {
  const filter: ResourceFilter = { kinds: [], names: [], namespaces: [], operations: [] };
  for (const part of value.split(',')) {
    const kv = part.split('=');
    if (kv.length !== 2) return undefined;
    const [key, item] = kv;
    if (key === 'kind') filter.kinds.push(item);
    else if (key === 'name') filter.names.push(item);
    else if (key === 'namespace') filter.namespaces.push(item);
    else if (key === 'operation') filter.operations.push(item);
  }
  return filter;
}

/** `policy,rule,resource,namespace,kind[,patchedResource]` (any other count: ignored, as Kyverno does). */
function parseResult(value: string, status: TestResultOptions['result']): TestResultOptions | undefined {
  const parts = value.split(',');
  if (parts.length !== 5 && parts.length !== 6) return undefined;
  const [policy, rule, resource, namespace, kind, patchedResource = ''] = parts;
  return { policy, rule, resource, namespace, kind, patchedResource, result: status };
}

/** `key=value`, else nothing. */
function keyValue(value: string): [string, string] | undefined {
  const parts = value.split('=');
  return parts.length === 2 && parts[0] !== '' && parts[1] !== '' ? [parts[0], parts[1]] : undefined;
}

/** `name,key=value,...`: a name and its values (fewer than two parts: ignored). */
function parseNamedValues(value: string): { name: string; rest: NamedValues } | undefined {
  const parts = value.split(',');
  if (parts.length < 2) return undefined;
  const values: Record<string, string> = {};
  for (const part of parts.slice(2)) {
    const kv = keyValue(part);
    if (kv) values[kv[0]] = kv[1];
  }
  return { name: parts[0], rest: { name: parts[1], values } };
}

export function registerCreateCommand(program: Command, io: CommandIO, result: { code: number }): void {
  const create = program
    .command('create')
    .description('Helps with the creation of various Kyverno resources.')
    .addHelpText(
      'after',
      examples(
        [
          '# Create metrics config file',
          'edict create metrics-config -i ns-included-1 -i ns-included-2 -e ns-excluded',
        ],
        [
          '# Create test file',
          'edict create test -p policy.yaml -r resource.yaml -f values.yaml --pass policy-name,rule-name,resource-name,resource-namespace,resource-kind',
        ],
        ['# Create user info file', 'edict create user-info -u molybdenum@somecorp.com -g basic-user -c admin'],
        [
          '# Create values file',
          'edict create values -g request.mode=dev -n prod,env=prod --rule policy,rule,env=demo --resource policy,resource,env=demo',
        ],
      ),
    )
    .action(() => create.outputHelp());

  create
    .command('exception')
    .description('Create a Kyverno policy exception file.')
    .argument('[name...]', 'name of the policy exception')
    .addOption(outputOption())
    .option('--namespace <namespace>', 'Policy exception namespace', '')
    .addOption(
      new Option('-b, --background [bool]', "Set to false when policy shouldn't be considered in background scans")
        .argParser(boolean)
        .default(true),
    )
    .option(
      '--policy-rules <rules>',
      'Policy name, followed by rule names (`--policy-rules=policy,rule-1,rule-2,...`)',
      array,
      [],
    )
    .option('--any <filter>', 'List of resource filters', array, [])
    .option('--all <filter>', 'List of resource filters', array, [])
    .addHelpText(
      'after',
      examples([
        '# Create a policy exception file',
        'edict create exception my-exception --namespace my-ns --policy-rules "policy,rule-1,rule-2" --any "kind=Pod,kind=Deployment,name=test-*"',
      ]),
    )
    .action(
      (
        names: string[],
        options: {
          output?: string;
          namespace: string;
          background: boolean;
          policyRules: string[];
          any: string[];
          all: string[];
        },
      ) => {
        if (names.length !== 1) return fail(io, result, `accepts 1 arg(s), received ${names.length}`);
        if (options.policyRules.length === 0) return fail(io, result, 'required flag(s) "policy-rules" not set');
        const defined = <T>(list: (T | undefined)[]) => list.filter((item): item is T => item !== undefined);
        emit(
          io,
          result,
          options.output,
          renderException({
            name: names[0],
            namespace: options.namespace,
            background: options.background,
            exceptions: defined(options.policyRules.map(parsePolicyRules)),
            any: defined(options.any.map(parseResourceFilter)),
            all: defined(options.all.map(parseResourceFilter)),
          }),
        );
      },
    );

  const metricsConfig = create
    .command('metrics-config')
    .description('Create a Kyverno metrics-config file.')
    .argument('[args...]')
    .addOption(outputOption())
    .option('-n, --name <name>', 'Name', 'kyverno-metrics')
    .option('--namespace <namespace>', 'Namespace', 'kyverno')
    .option('-i, --include <namespaces>', 'Included namespaces', slice, [])
    .option('-e, --exclude <namespaces>', 'Excluded namespaces', slice, [])
    .addHelpText(
      'after',
      examples([
        '# Create metrics config file',
        'edict create metrics-config -i ns-included-1 -i ns-included-2 -e ns-excluded',
      ]),
    )
    .action(
      (
        args: string[],
        options: { output?: string; name: string; namespace: string; include: string[]; exclude: string[] },
      ) => {
        if (!noArgs(io, result, metricsConfig, args)) return;
        emit(io, result, options.output, renderMetricsConfig(options));
      },
    );

  const test = create
    .command('test')
    .description('Create a Kyverno test file.')
    .argument('[args...]')
    .addOption(outputOption())
    .option('-n, --name <name>', 'Test name', 'test-name')
    .option('-p, --policy <files>', 'List of policy files', slice, [])
    .option('-r, --resource <files>', 'List of resource files', slice, [])
    .option('-f, --values <file>', 'Values file', '')
    .option('--pass <result>', 'Expected `pass` results', array, [])
    .option('--fail <result>', 'Expected `fail` results', array, [])
    .option('--skip <result>', 'Expected `skip` results', array, [])
    .addHelpText(
      'after',
      examples([
        '# Create test file',
        'edict create test -p policy.yaml -r resource.yaml -f values.yaml --pass policy-name,rule-name,resource-name,resource-namespace,resource-kind',
      ]),
    )
    .action(
      (
        args: string[],
        options: {
          output?: string;
          name: string;
          policy: string[];
          resource: string[];
          values: string;
          pass: string[];
          fail: string[];
          skip: string[];
        },
      ) => {
        if (!noArgs(io, result, test, args)) return;
        const results = [
          ...options.pass.map((value) => parseResult(value, 'pass')),
          ...options.fail.map((value) => parseResult(value, 'fail')),
          ...options.skip.map((value) => parseResult(value, 'skip')),
        ].filter((item): item is TestResultOptions => item !== undefined);
        emit(
          io,
          result,
          options.output,
          renderTest({
            name: options.name,
            policies: options.policy,
            resources: options.resource,
            values: options.values,
            results,
          }),
        );
      },
    );

  const userInfo = create
    .command('user-info')
    .description('Create a Kyverno user-info file.')
    .argument('[args...]')
    .addOption(outputOption())
    .option('-u, --username <name>', 'User name', '')
    .option('-r, --role <roles>', 'Role', slice, [])
    .option('-c, --cluster-role <roles>', 'Cluster role', slice, [])
    .option('-g, --group <groups>', 'Group', slice, [])
    .addHelpText(
      'after',
      examples(['# Create user info file', 'edict create user-info -u molybdenum@somecorp.com -g basic-user -c admin']),
    )
    .action(
      (
        args: string[],
        options: { output?: string; username: string; role: string[]; clusterRole: string[]; group: string[] },
      ) => {
        if (!noArgs(io, result, userInfo, args)) return;
        emit(
          io,
          result,
          options.output,
          renderUserInfo({
            username: options.username,
            roles: options.role,
            clusterRoles: options.clusterRole,
            groups: options.group,
          }),
        );
      },
    );

  const values = create
    .command('values')
    .description('Create a Kyverno values file.')
    .argument('[args...]')
    .addOption(outputOption())
    .option('-n, --ns-selector <selector>', 'Namespace selector', array, [])
    .option('-g, --global <values>', 'Global value', slice, [])
    .option('--rule <values>', 'Policy rule values', array, [])
    .option('--resource <values>', 'Policy resource values', array, [])
    .addHelpText(
      'after',
      examples([
        '# Create values file',
        'edict create values -g request.mode=dev -n prod,env=prod --rule policy,rule,env=demo --resource policy,resource,env=demo',
      ]),
    )
    .action(
      (
        args: string[],
        options: { output?: string; nsSelector: string[]; global: string[]; rule: string[]; resource: string[] },
      ) => {
        if (!noArgs(io, result, values, args)) return;
        const globalValues: Record<string, string> = {};
        for (const value of options.global) {
          const kv = keyValue(value);
          if (kv) globalValues[kv[0]] = kv[1];
        }
        const namespaceSelectors = options.nsSelector.flatMap((value) => {
          const parts = value.split(',');
          if (parts.length < 2) return [];
          const labels: Record<string, string> = {};
          for (const part of parts.slice(1)) {
            const kv = keyValue(part);
            if (kv) labels[kv[0]] = kv[1];
          }
          return [{ name: parts[0], labels }];
        });
        const policies: ValuesPolicy[] = [
          ...options.rule.flatMap((value) => {
            const parsed = parseNamedValues(value);
            return parsed ? [{ name: parsed.name, rules: [parsed.rest], resources: [] }] : [];
          }),
          ...options.resource.flatMap((value) => {
            const parsed = parseNamedValues(value);
            return parsed ? [{ name: parsed.name, rules: [], resources: [parsed.rest] }] : [];
          }),
        ];
        emit(io, result, options.output, renderValues({ policies, globalValues, namespaceSelectors }));
      },
    );
}
