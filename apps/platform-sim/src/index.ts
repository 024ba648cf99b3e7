export { buildSim } from './app';
export {
  EXTRA_CREATOR_PREFIX,
  extraCreatorUsername,
  MAX_EXTRA_CREATORS,
  RUNTIME_OPTION_KEYS,
  type RuntimeConfig,
  SANDBOX_ACCOUNTS,
  SANDBOX_PASSWORD,
  SANDBOX_TWOFA_CODE,
  type SimOptions,
  type SimTls,
} from './options';
export type { BroadcastLogEntry, FanFacts } from './world/broadcasts';
