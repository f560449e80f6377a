import { toJson } from '@bufbuild/protobuf';
import { SimpleTestSchema } from '@bufbuild/cel-spec/cel/expr/conformance/test/simple_pb.js';
import { getTestRegistry } from '@bufbuild/cel-spec/testdata/registry.js';
import { getConformanceSuite } from '@bufbuild/cel-spec/testdata/tests.js';
import type { ConformanceCase, SpecTest } from './spec-types';

/** Every simple test of CEL's conformance suite (cel-spec v0.25.1 as `@bufbuild/cel-spec` ships it). */
export function loadConformanceCases(): ConformanceCase[] {
  const registry = getTestRegistry();
  const cases: ConformanceCase[] = [];
  for (const file of getConformanceSuite().suites) {
    for (const section of file.suites) {
      for (const test of section.tests) {
        const json = toJson(SimpleTestSchema, test.original, { registry }) as unknown as SpecTest;
        cases.push({ file: file.name, section: section.name, name: test.name, test: json });
      }
    }
  }
  return cases;
}
