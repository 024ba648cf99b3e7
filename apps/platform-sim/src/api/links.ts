import { notAllowed, notFound } from '../errors';
import { bodyObject, bodyString, requiredBodyString } from '../params';
import type { TrackingLink } from '../records';
import { TRACKING_LINK_DEFAULT } from '../world/state';
import type { ApiContext, ApiRoute } from './types';

const MAX_LABEL = 100;
const MAX_DESCRIPTION = 500;

function trackingLinks(ctx: ApiContext): TrackingLink[] {
  return [...ctx.core.world.state(ctx.creator).trackingLinks.values()];
}

/**
 * GUESS endpoint (docs/upstream-decisions.md): without `id` it creates a link from
 * `{label, description?}`; with `id` it updates label and/or description. The default type-1
 * link cannot be edited (403 code 20).
 */
function saveTrackingLink(ctx: ApiContext): TrackingLink {
  const body = bodyObject(ctx.body);
  const state = ctx.core.world.state(ctx.creator);
  const id = bodyString(body, 'id', { maxLength: 64 });
  if (id === undefined) {
    const label = requiredBodyString(body, 'label', MAX_LABEL).trim();
    const description =
      bodyString(body, 'description', { allowEmpty: true, maxLength: MAX_DESCRIPTION }) ?? '';
    return state.createTrackingLink(label, description);
  }
  const label = bodyString(body, 'label', { maxLength: MAX_LABEL })?.trim();
  const description = bodyString(body, 'description', { allowEmpty: true, maxLength: MAX_DESCRIPTION });
  const link = state.trackingLinks.get(id);
  if (!link) throw notFound('tracking link');
  if (link.type === TRACKING_LINK_DEFAULT) throw notAllowed('The default tracking link cannot be edited.');
  return state.editTrackingLink(link, { label, description }, ctx.now);
}

export const linkRoutes: ApiRoute[] = [
  {
    method: 'GET',
    path: '/trackinglinks',
    summary: "The links: the default one (`type` 1, the platform's search link) first, then by creation.",
    auth: 'session',
    handler: trackingLinks,
  },
  {
    method: 'POST',
    path: '/trackinglinks',
    summary:
      '**GUESS.** Without `id`, creates: `{label (1-100), description? (≤ 500)}` → the link (`type` 2, counters 0, next `internalId`). With `id`, updates `label` and/or `description`; unknown: 404; the default link: 403 code 20.',
    auth: 'session',
    write: true,
    handler: saveTrackingLink,
  },
];
