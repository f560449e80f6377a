import { Engine } from '@edict/engine';
import type { EngineFactory } from './test-engine';

/** The real engine, one instance per test (each test brings its own mocks and exceptions). */
export const defaultEngineFactory: EngineFactory = (dependencies) => new Engine(dependencies);
