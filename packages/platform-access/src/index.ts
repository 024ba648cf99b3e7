// How the gateway's processes reach the platform for an account (the worker's jobs, the listener's
// realtime connections): the platform client of the settings, the account's egress proxy (chosen,
// kept and moved when it is down; its health is `ProxyHealth`) and its platform session, renewed
// with the stored credentials when it expires.
export { type PlatformSettings, platformClient } from './client';
export { accountEgress, checkLoginCountry, Egress, Route } from './egress';
export { ProxyHealth } from './proxy-health';
export { AccountSessions, accountSessions, reauthEvents } from './sessions';
