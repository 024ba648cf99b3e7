import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { refusedAs } from '../common/platform-refusal';
import { AccountParams, accountExample, NonBlank, Text } from '../common/schemas';
import { DESCRIPTION_MAX, LABEL_MAX, TrackingLink } from '../common/tracking-link';
import { accountUpdate, defineOperation, upstreamData } from '../define';

export const trackingLinksUpdate = defineOperation({
  name: 'tracking-links-update',
  method: 'PUT',
  path: '/:accountId/tracking-links',
  summary: 'Update the label or description of a tracking link',
  tags: ['tracking-links'],
  ...accountUpdate,
  successMessage: 'Tracking link updated successfully',
  notFoundMessage: 'tracking link not found: no link with this id on the account',
  schemas: {
    params: AccountParams,
    body: Type.Object({
      id: NonBlank('id of the tracking link', { maxLength: 64 }),
      label: Type.Optional(NonBlank('name of the link', { maxLength: LABEL_MAX })),
      description: Type.Optional(Text(undefined, { maxLength: DESCRIPTION_MAX, long: true })),
    }),
    data: Upstream(TrackingLink.schema),
  },
  example: {
    params: accountExample,
    body: { id: '788359268972626200', label: 'Instagram bio (summer)' },
  },
  run: async ({ body }, { call }) => {
    // The default link's type is only known to the platform, so its 403 is the rule's answer here.
    const link = await refusedAs(
      'the default tracking link (type 1, the platform’s search link) is reserved and cannot be edited',
      () =>
        call('trackingLinkUpsert', {
          body: {
            id: body.id,
            ...(body.label === undefined ? {} : { label: body.label }),
            ...(body.description === undefined ? {} : { description: body.description }),
          },
        }),
    );
    return upstreamData(TrackingLink.from(link));
  },
});
