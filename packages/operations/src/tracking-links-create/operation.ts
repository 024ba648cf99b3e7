import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { AccountParams } from '../common/schemas';
import {
  CreatedTrackingLink,
  DESCRIPTION_MAX,
  LABEL_MAX,
  toCreatedTrackingLink,
} from '../common/tracking-link';
import { defineOperation, upstreamData } from '../define';

export const trackingLinksCreate = defineOperation({
  name: 'tracking-links-create',
  method: 'POST',
  path: '/:accountId/tracking-links',
  summary: 'Create a tracking link',
  tags: ['tracking-links'],
  session: 'path',
  write: true,
  successStatus: 201,
  schemas: {
    params: AccountParams,
    body: Type.Object({
      label: Type.String({ minLength: 1, maxLength: LABEL_MAX, description: 'name of the link' }),
      description: Type.Optional(Type.String({ maxLength: DESCRIPTION_MAX })),
    }),
    data: Upstream(CreatedTrackingLink),
  },
  check: ({ body }) => (body.label.trim() === '' ? 'label must not be blank' : undefined),
  run: async ({ body }, { call }) => {
    // No `id` in the body: that is what makes the platform's one save call a creation.
    const link = await call('trackingLinkUpsert', {
      body: {
        label: body.label,
        ...(body.description === undefined ? {} : { description: body.description }),
      },
    });
    return upstreamData(toCreatedTrackingLink(link));
  },
});
