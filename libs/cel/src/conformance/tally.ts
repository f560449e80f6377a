import { suiteGroup, type SuiteGroup } from './classify';
import { runConformanceCase, type Outcome } from './runner';
import type { ConformanceCase } from './spec-types';

export interface SuiteTally {
  readonly suite: string;
  readonly group: SuiteGroup;
  pass: number;
  fail: number;
  apart: number;
}

export interface ConformanceRun {
  readonly suites: SuiteTally[];
  readonly failures: { readonly test: string; readonly reason: string }[];
  readonly apart: { readonly test: string; readonly rule: string }[];
}

/** Runs every case and counts pass / fail / apart per suite. */
export function runConformance(cases: readonly ConformanceCase[]): ConformanceRun {
  const bySuite = new Map<string, SuiteTally>();
  const failures: ConformanceRun['failures'] = [];
  const apart: ConformanceRun['apart'] = [];
  for (const c of cases) {
    let tally = bySuite.get(c.file);
    if (!tally) bySuite.set(c.file, (tally = { suite: c.file, group: suiteGroup(c.file), pass: 0, fail: 0, apart: 0 }));
    const outcome: Outcome = runConformanceCase(c);
    const test = `${c.file}/${c.section}/${c.name}`;
    if (outcome.kind === 'pass') tally.pass++;
    else if (outcome.kind === 'fail') {
      tally.fail++;
      failures.push({ test, reason: outcome.reason });
    } else {
      tally.apart++;
      apart.push({ test, rule: outcome.rule });
    }
  }
  return { suites: [...bySuite.values()], failures, apart };
}

/** Passes over counted tests (pass + fail) of a group, as a percentage with one decimal. */
export function groupRate(run: ConformanceRun, group: SuiteGroup): { pass: number; counted: number; percent: number } {
  let pass = 0;
  let counted = 0;
  for (const tally of run.suites) {
    if (tally.group !== group) continue;
    pass += tally.pass;
    counted += tally.pass + tally.fail;
  }
  return { pass, counted, percent: counted ? Math.round((pass / counted) * 1000) / 10 : 100 };
}

/** The figures as a table, one suite a line, then the group rates. */
export function formatConformance(run: ConformanceRun): string {
  const lines = ['suite            group        pass  fail  apart'];
  for (const t of run.suites) {
    lines.push(
      `${t.suite.padEnd(16)} ${t.group.padEnd(11)} ${String(t.pass).padStart(5)} ${String(t.fail).padStart(5)} ${String(t.apart).padStart(6)}`,
    );
  }
  for (const group of ['core', 'extension'] as const) {
    const rate = groupRate(run, group);
    lines.push(`${group} (non-proto): ${rate.pass} of ${rate.counted} pass (${rate.percent}%)`);
  }
  return lines.join('\n');
}
