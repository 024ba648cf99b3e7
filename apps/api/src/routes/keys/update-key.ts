import type { KeyFields } from '@cg/store';
import { Type } from 'typebox';
import type { ApiRoute } from '../route';
import { answers, ok, routeSchema } from '../schema';
import {
  ApiKeyRecord,
  callerKey,
  checkGrant,
  KeyBodyFields,
  KeyParams,
  keyNotFound,
  keyRecord,
  refusedChange,
} from './key';

/** `PATCH /keys/{keyId}`: a key's label, access, accounts or limit; in effect everywhere within 1 s. */
export const updateKey: ApiRoute = {
  name: 'keys-update',
  method: 'PATCH',
  url: '/keys/:keyId',
  access: 'admin',
  schema: routeSchema('Change an API key’s label, scope or limit (in effect within 1 s)', 'keys', {
    params: KeyParams,
    body: Type.Object(
      {
        label: Type.Optional(KeyBodyFields.label),
        access: Type.Optional(KeyBodyFields.access),
        accounts: Type.Optional(KeyBodyFields.accounts),
        rpm: Type.Optional(KeyBodyFields.rpm),
      },
      { minProperties: 1 },
    ),
    response: answers(200, ApiKeyRecord),
  }),
  example: { params: { keyId: 'key_4Qm8ZtP2xLr6Ks0Wd1Vn3a' }, body: { access: 'read' } },
  async handler(request, _reply, { context }) {
    const target = await callerKey(request, context);
    const fields = request.body as KeyFields;
    await checkGrant(request, fields, context);
    const updated = await context.store.apiKeys.update(request.tenantId, target.keyId, fields);
    // Revoked meanwhile.
    if (updated === null) throw keyNotFound(target.keyId);
    if (typeof updated === 'string') throw refusedChange(updated, target.keyId);
    return ok(200, 'API key updated', keyRecord(updated));
  },
};
