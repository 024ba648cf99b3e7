export {
  BODY_DEADLINE_CODE,
  type CallArgs,
  DEFAULT_CHECK_KEY,
  DEFAULT_USER_AGENT,
  type LoginOutcome,
  PlatformClient,
  type PlatformClientOptions,
  type SessionAuth,
  type UpstreamSession,
} from './client';
export {
  API_PREFIX,
  type AuthEndpointName,
  type EndpointDef,
  type EndpointName,
  endpoints,
} from './endpoints';
export {
  type Classification,
  type ClassifyInput,
  classify,
  type Failure,
  type NetworkPhase,
  networkPhase,
  PlatformError,
  type PlatformErrorInit,
  type PlatformErrorKind,
  parseRetryAfter,
  type Retry,
} from './errors';
export { type CallOutcome, type CallReport, failureOutcome, statusOutcome } from './outcome';
export {
  ClientTimestamp,
  type ClientTimestampOptions,
  clientCheck,
  cyrb53,
  sessionIdFromToken,
} from './signing';
