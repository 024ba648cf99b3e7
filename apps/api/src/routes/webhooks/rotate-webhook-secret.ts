import { ROTATION_OVERLAP_MS } from '@cg/events';
import { Type } from 'typebox';
import type { ApiRoute } from '../route';
import { answers, Iso, ok, routeSchema } from '../schema';
import { callerEndpoint, endpointNotFound, IdParams } from './endpoint';

/** `POST /webhooks/{id}/rotate-secret`: a new signing secret, the old one signing beside it for 24 h. */
export const rotateWebhookSecret: ApiRoute = {
  name: 'webhooks-rotate-secret',
  method: 'POST',
  url: '/webhooks/:id/rotate-secret',
  access: 'admin',
  everyAccount: true,
  schema: routeSchema('A new signing secret; the old one keeps signing beside it for 24 h', 'webhooks', {
    params: IdParams,
    response: answers(
      200,
      Type.Object({
        id: Type.String(),
        secret: Type.String({ description: 'the new secret: shown only here' }),
        previousSecretExpiresAt: Iso('until then deliveries carry a signature of each secret'),
      }),
    ),
  }),
  async handler(request, _reply, { context }) {
    const endpoint = await callerEndpoint(request, context);
    const secret = await context.events.webhooks.rotate(request.tenantId, endpoint.id);
    if (secret === null) throw endpointNotFound(endpoint.id);
    const until = new Date(Date.now() + ROTATION_OVERLAP_MS).toISOString();
    return ok(200, 'Secret rotated', { id: endpoint.id, secret, previousSecretExpiresAt: until });
  },
};
