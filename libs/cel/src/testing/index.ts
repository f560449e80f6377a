// @edict/cel/testing: typed in-memory fakes of Kyverno's CEL ports, for specs (here and in the
// policy engines, the CLI and the controllers).
export { evaluateKyverno } from './kyverno-eval';
export {
  FakeGlobalContextPort,
  FakeHttpPort,
  FakeImageDataPort,
  FakeResourcePort,
  fakeKyvernoPorts,
  type FakeHttpRoute,
  type FakeKyvernoPorts,
} from './kyverno-fakes';
