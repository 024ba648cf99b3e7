/**
 * Every Redis key the store owns, in one place. Keys written together in one MULTI share a hash tag,
 * so that each MULTI stays in one Cluster slot: an account's (record, tenant index) the tenant's
 * `{t:<tenant>}`, an API key's (record, key index) `{keys}`.
 */
export function storeKeys(prefix: string) {
  const tenant = (tenantId: string) => `${prefix}:{t:${tenantId}}`;
  return {
    apiKey: (hash: string) => `${prefix}:{keys}:apikey:${hash}`,
    apiKeyIndex: () => `${prefix}:{keys}:apikeys`,
    /** Moved by every change of a key's scope or removal: what a guarded change compares. */
    apiKeysVersion: () => `${prefix}:{keys}:apikeys:version`,
    /**
     * Where an earlier version kept API keys (each in a slot of its own): still read and revoked,
     * never written, so keys made before an upgrade keep working, on the old processes of a rolling
     * upgrade too.
     */
    legacyApiKey: (hash: string) => `${prefix}:apikey:${hash}`,
    legacyApiKeyIndex: () => `${prefix}:apikeys`,
    account: (tenantId: string, accountId: string) => `${tenant(tenantId)}:acct:${accountId}`,
    /** The jobs that connected an account (their sealed input and result hold its secrets). */
    accountJobs: (tenantId: string, accountId: string) => `${tenant(tenantId)}:acct:${accountId}:jobs`,
    /** Held by the process renewing the account's platform session (`lockRelogin`). */
    accountRelogin: (tenantId: string, accountId: string) => `${tenant(tenantId)}:acct:${accountId}:relogin`,
    /**
     * A short window of one account's action (`PacingStore.claim`): held while it lasts, e.g.
     * `typing:<chatId>` for the typing indicator's 3 s bound.
     */
    accountWindow: (tenantId: string, accountId: string, name: string) =>
      `${tenant(tenantId)}:acct:${accountId}:window:${name}`,
    /**
     * What the gateway saw of an account's platform calls and realtime connection (`AccountHealthStore`):
     * written only while the account's record exists, removed with it.
     */
    accountHealth: (tenantId: string, accountId: string) => `${tenant(tenantId)}:acct:${accountId}:health`,
    tenantAccounts: (tenantId: string) => `${tenant(tenantId)}:accts`,
    /**
     * The tenant's recent jobs, `GET /jobs` (packages/queue `TenantJobs`): ZSET `<jobId> <op> <accountId>`
     * → submit time (ms), trimmed to the job retention.
     */
    tenantJobs: (tenantId: string) => `${tenant(tenantId)}:jobs`,
    tenantByPlatformId: (tenantId: string) => `${tenant(tenantId)}:byplatform`,
    pendingTwofa: (tenantId: string, tokenHash: string) => `${tenant(tenantId)}:tfa:${tokenHash}`,
    /** The connect job and the second-factor attempts of a pending connection. */
    pendingTwofaJobs: (tenantId: string, tokenHash: string) => `${tenant(tenantId)}:tfa:${tokenHash}:jobs`,
    /** Which proxy each account leaves through (`<tenant>/<account>` → proxy id): the proxies' load. */
    egressLoad: () => `${prefix}:{egress}:load`,
    /** A proxy's recent proxy-layer failures, and its mark while down (one slot: one script). */
    egressFailures: (proxyId: string) => `${prefix}:{egress:${proxyId}}:failures`,
    egressDown: (proxyId: string) => `${prefix}:{egress:${proxyId}}:down`,
    /** The requests one API key made in one clock minute (`RateLimitStore.take`): a slot per key. */
    keyRequests: (keyId: string, minute: number) => `${prefix}:{rl:${keyId}}:${minute}`,
    /** Failed authentications from one source address within the window (`RateLimitStore.failedAuth`). */
    authFailures: (address: string) => `${prefix}:{authfail:${address}}`,
    /** The operations workers alive: worker id → the last beat (ms), one ZSET (`WorkerHeartbeats`). */
    workerBeats: () => `${prefix}:{workers}:beats`,
    /**
     * A tenant's usage in one clock hour (`hour`: Unix ms / 3,600,000), one HASH: `<process>|<dim>:<id>:<counter>`
     * → that process's count so far (usage.ts). Expires 35 days after the hour.
     */
    usageHour: (tenantId: string, hour: number) => `${tenant(tenantId)}:usage:${hour}`,
    /** A tenant's audit log (audit.ts): a STREAM of its writes and admin actions, trimmed to 90 days. */
    auditLog: (tenantId: string) => `${tenant(tenantId)}:audit`,
  };
}
export type StoreKeys = ReturnType<typeof storeKeys>;
