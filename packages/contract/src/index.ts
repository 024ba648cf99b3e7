export {
  AcceptedSchema,
  type Envelope,
  EnvelopeSchema,
  ErrorBodySchema,
  envelope,
  type Outcome,
  Upstream,
} from './envelope';
export {
  ERROR_STATUS,
  type ErrorBody,
  type ErrorCode,
  errorBody,
  GatewayError,
  isErrorCode,
  STATUS_NAMES,
} from './errors';
export { ACCESS_EXTENSION, inData, inResponse, PAGING_EXTENSION, type Paging } from './paging';
