import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { AccountParams, accountExample, NonBlank, Text } from '../common/schemas';
import { CreatedTrackingLink, DESCRIPTION_MAX, LABEL_MAX } from '../common/tracking-link';
import { accountCreate, defineOperation, upstreamData } from '../define';

export const trackingLinksCreate = defineOperation({
  name: 'tracking-links-create',
  method: 'POST',
  path: '/:accountId/tracking-links',
  summary: 'Create a tracking link',
  tags: ['tracking-links'],
  ...accountCreate,
  schemas: {
    params: AccountParams,
    body: Type.Object({
      label: NonBlank('name of the link', { maxLength: LABEL_MAX }),
      description: Type.Optional(Text(undefined, { maxLength: DESCRIPTION_MAX, long: true })),
    }),
    data: Upstream(CreatedTrackingLink.schema),
  },
  example: {
    params: accountExample,
    body: { label: 'Instagram bio', description: 'The link in the Instagram profile' },
  },
  run: async ({ body }, { call }) => {
    // No `id` in the body: that is what makes the platform's one save call a creation.
    const link = await call('trackingLinkUpsert', {
      body: {
        label: body.label,
        ...(body.description === undefined ? {} : { description: body.description }),
      },
    });
    return upstreamData(CreatedTrackingLink.from(link));
  },
});
