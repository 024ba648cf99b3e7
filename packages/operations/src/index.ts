export * from './answers';
export { coerce } from './common/coerce';
export { PlatformProfile } from './common/profile';
export {
  AccountParams,
  EXAMPLE_ACCOUNT_ID,
  exampleClock,
  NON_BLANK_PATTERN,
  PINNED_EXAMPLE_CLOCK_MS,
} from './common/schemas';
export { Spool, type SpoolUse } from './common/spool';
export * from './define';
export { mediaDownload } from './media-download/operation';
export { mediaUpload, UPLOAD_TYPES, UploadResult } from './media-upload/operation';
export {
  allOperations,
  assertRegistry,
  findOperation,
  internalOperations,
  type OperationName,
  operations,
} from './registry';
