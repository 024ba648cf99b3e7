export * from './answers';
export { coerce } from './common/coerce';
export { PlatformProfile } from './common/profile';
export { exampleClock, NON_BLANK_PATTERN } from './common/schemas';
export * from './define';
export {
  allOperations,
  assertRegistry,
  findOperation,
  internalOperations,
  type OperationName,
  operations,
} from './registry';
