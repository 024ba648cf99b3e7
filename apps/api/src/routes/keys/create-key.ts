import type { KeyFields } from '@cg/store';
import { Type } from 'typebox';
import type { ApiRoute } from '../route';
import { answers, ok, routeSchema } from '../schema';
import { ApiKeyRecord, checkGrant, KeyBodyFields, keyRecord } from './key';

/** `POST /keys`: a new key of the caller's tenant, no wider than the caller's; the key is shown once. */
export const createKey: ApiRoute = {
  name: 'keys-create',
  method: 'POST',
  url: '/keys',
  access: 'admin',
  schema: routeSchema('Create an API key; the key is shown only in this answer', 'keys', {
    body: Type.Object({
      label: Type.Optional(KeyBodyFields.label),
      access: KeyBodyFields.access,
      accounts: Type.Optional(KeyBodyFields.accounts),
      rpm: Type.Optional(KeyBodyFields.rpm),
    }),
    response: answers(
      201,
      Type.Object({
        ...ApiKeyRecord.properties,
        key: Type.String({ description: '`cgk_…`: shown only here; only its hash is stored' }),
      }),
    ),
  }),
  example: { body: { label: 'chatter Ana', access: 'write', accounts: ['acct_8fKq2LmZ4Xw9Ty1Hb3Rc5v'] } },
  async handler(request, reply, { context }) {
    const body = request.body as KeyFields;
    const fields = { ...body, accounts: body.accounts ?? null };
    await checkGrant(request, fields, context);
    const { key, info } = await context.store.apiKeys.create(request.tenantId, fields);
    return reply.status(201).send(ok(201, 'API key created', { ...keyRecord(info), key }));
  },
};
