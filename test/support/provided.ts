import 'vitest';

// What the global setup hands the test files (`provide`, `inject`). The files that provide or inject
// it import this module, so every program that typechecks one of them knows the type: the root's and
// a package's whose tests use these helpers (packages/queue/test).
declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}
