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
    tenantAccounts: (tenantId: string) => `${tenant(tenantId)}:accts`,
    tenantByPlatformId: (tenantId: string) => `${tenant(tenantId)}:byplatform`,
    pendingTwofa: (tenantId: string, tokenHash: string) => `${tenant(tenantId)}:tfa:${tokenHash}`,
  };
}
export type StoreKeys = ReturnType<typeof storeKeys>;
