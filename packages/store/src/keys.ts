/**
 * Every Redis key the store owns, in one place. Keys of one tenant share the hash tag `{t:<tenant>}`
 * so the multi-key writes of an account (record, tenant index) stay in one Cluster slot.
 */
export function storeKeys(prefix: string) {
  const tenant = (tenantId: string) => `${prefix}:{t:${tenantId}}`;
  return {
    apiKey: (hash: string) => `${prefix}:apikey:${hash}`,
    apiKeyIndex: () => `${prefix}:apikeys`,
    account: (tenantId: string, accountId: string) => `${tenant(tenantId)}:acct:${accountId}`,
    /** The jobs that connected an account (their sealed input and result hold its secrets). */
    accountJobs: (tenantId: string, accountId: string) => `${tenant(tenantId)}:acct:${accountId}:jobs`,
    tenantAccounts: (tenantId: string) => `${tenant(tenantId)}:accts`,
    tenantByPlatformId: (tenantId: string) => `${tenant(tenantId)}:byplatform`,
    pendingTwofa: (tenantId: string, tokenHash: string) => `${tenant(tenantId)}:tfa:${tokenHash}`,
    /** The connect job and the second-factor attempts of a pending connection. */
    pendingTwofaJobs: (tenantId: string, tokenHash: string) => `${tenant(tenantId)}:tfa:${tokenHash}:jobs`,
  };
}
export type StoreKeys = ReturnType<typeof storeKeys>;
