export { coerce } from './common/coerce';
export { PlatformProfile, toPlatformProfile } from './common/profile';
export * from './define';
export { allOperations, assertRegistry, findOperation, type OperationName, operations } from './registry';
