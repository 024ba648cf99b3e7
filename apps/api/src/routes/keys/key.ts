import { GatewayError } from '@cg/contract';
import { NonEmpty, Text } from '@cg/operations';
import { type ApiKeyInfo, KEY_ACCESS, type KeyFields, LAST_ADMIN, type LEGACY } from '@cg/store';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ApiContext } from '../../context';
import { includes, within } from '../../scope';

// What the key routes share: a key as the API shows it (never the key itself, which only its
// creation answers), the key named by the path, and the rule that a key grants no more than it has.

export const KeyParams = Type.Object({ keyId: Type.String({ pattern: '^key_[A-Za-z0-9]{1,64}$' }) });

/** The fields of a create or update body (each route says which are required). */
export const KeyBodyFields = {
  label: Text('what the key is for, e.g. who holds it', { maxLength: 100 }),
  access: Type.Union(
    KEY_ACCESS.map((access) => Type.Literal(access)),
    {
      description:
        'read: GET operations and job status; write: every operation; admin: write, plus keys, webhook endpoints, connecting and disconnecting accounts',
    },
  ),
  accounts: Type.Union(
    [
      Type.Array(NonEmpty(undefined, { maxLength: 100 }), {
        minItems: 1,
        maxItems: 1_000,
        uniqueItems: true,
      }),
      Type.Null(),
    ],
    { description: 'service account ids the key reaches; null: every account of the tenant' },
  ),
  rpm: Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'requests a minute; 0 = unlimited' }),
};

export const ApiKeyRecord = Type.Object({
  keyId: Type.String(),
  label: Type.String(),
  access: KeyBodyFields.access,
  accounts: KeyBodyFields.accounts,
  rpm: Type.Union([Type.Integer(), Type.Null()], {
    description: "requests a minute (0 = unlimited); null: the gateway's default (API_KEY_RPM_DEFAULT)",
  }),
  createdAt: Type.Number({ description: 'Unix ms' }),
});

/** A key as the API shows it. */
export function keyRecord(info: ApiKeyInfo) {
  return {
    keyId: info.keyId,
    label: info.label,
    access: info.access,
    accounts: info.accounts,
    rpm: info.rpm ?? null,
    createdAt: info.createdAt,
  };
}

export const keyNotFound = (keyId: string) => new GatewayError('NOT_FOUND', `API key ${keyId} not found`);

/**
 * Whether the caller sees a key: every key of the tenant for a key of every account; for a key of
 * some accounts, the keys within those accounts (a key reaching others is not shown).
 */
export const visibleTo = (request: FastifyRequest, info: ApiKeyInfo) => within(request, info.accounts);

/** The caller's tenant's key named by the path, or 404 (another tenant's, or one it does not see). */
export async function callerKey(request: FastifyRequest, { store }: ApiContext): Promise<ApiKeyInfo> {
  const { keyId } = request.params as { keyId: string };
  const info = await store.apiKeys.get(request.tenantId, keyId);
  if (!info || !visibleTo(request, info)) throw keyNotFound(keyId);
  return info;
}

/**
 * 403 when `fields` would give more than the caller's key has (access, accounts, limit); 400 when a
 * key of every account names an account the tenant does not have.
 */
export async function checkGrant(request: FastifyRequest, fields: KeyFields, { store, config }: ApiContext) {
  const own = request.apiKey;
  if (fields.access !== undefined && !includes(own.access, fields.access))
    throw new GatewayError(
      'FORBIDDEN',
      `this API key has ${own.access} access: it cannot grant ${fields.access}`,
    );
  if (fields.accounts !== undefined) {
    if (own.accounts !== null) {
      const beyond =
        fields.accounts === null
          ? 'every account'
          : fields.accounts.find((id) => !own.accounts?.includes(id));
      if (beyond !== undefined)
        throw new GatewayError(
          'FORBIDDEN',
          `this API key reaches some accounts only: it cannot grant ${beyond}`,
        );
    } else if (fields.accounts !== null) {
      const known = new Set(
        (await store.accounts.list(request.tenantId)).map((account) => account.accountId),
      );
      const unknown = fields.accounts.find((id) => !known.has(id));
      if (unknown !== undefined) throw new GatewayError('BAD_REQUEST', `account ${unknown} not found`);
    }
  }
  const ownRpm = own.rpm ?? config.API_KEY_RPM_DEFAULT;
  if (fields.rpm !== undefined && ownRpm > 0 && (fields.rpm === 0 || fields.rpm > ownRpm))
    throw new GatewayError(
      'FORBIDDEN',
      `this API key is limited to ${ownRpm} requests a minute: it cannot grant ${fields.rpm === 0 ? 'unlimited' : fields.rpm}`,
    );
}

/** The store's refusal of a change, as the API answers it. */
export function refusedChange(outcome: typeof LAST_ADMIN | typeof LEGACY, keyId: string): GatewayError {
  return outcome === LAST_ADMIN
    ? new GatewayError('CONFLICT', `${keyId} is the tenant's last admin key: it cannot be revoked or demoted`)
    : new GatewayError(
        'CONFLICT',
        `${keyId} was made before keys had scopes: revoke it and create a new key to change its scope`,
      );
}
