export { coerce } from './common/coerce';
export { PlatformProfile } from './common/profile';
export {
  AccountParams,
  addTextFormats,
  EXAMPLE_ACCOUNT_ID,
  exampleClock,
  isTextFormat,
  NON_BLANK_PATTERN,
  NonEmpty,
  PINNED_EXAMPLE_CLOCK_MS,
  TEXT_RULE,
  Text,
  textProblem,
} from './common/schemas';
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
