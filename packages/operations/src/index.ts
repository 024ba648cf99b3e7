export { coerce, PlatformProfile, toPlatformProfile } from './common/profile';
export * from './define';
export { assertRegistry, findOperation, type OperationName, operations } from './registry';
