// Test helpers: an in-memory cluster with controller replicas, and small builders.
export * from './e2e-cluster';
