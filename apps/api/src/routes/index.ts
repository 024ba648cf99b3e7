import type { OperationExample } from '@cg/operations';
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../context';
import type { ConnectedAccounts } from '../submit';
import { accountStatus } from './accounts/account-status';
import { disconnectAccount } from './accounts/disconnect-account';
import { listAccounts } from './accounts/list-accounts';
import { listAudit } from './audit/list-audit';
import { listEvents } from './events/list-events';
import { streamEvents } from './events/stream-events';
import { cancelJob } from './jobs/cancel-job';
import { jobStatus } from './jobs/job-status';
import { listJobs } from './jobs/list-jobs';
import { createKey } from './keys/create-key';
import { deleteKey } from './keys/delete-key';
import { getKey } from './keys/get-key';
import { listKeys } from './keys/list-keys';
import { ownKey } from './keys/own-key';
import { updateKey } from './keys/update-key';
import { downloadMedia } from './media/download-media';
import { type MediaDeps, prepareMedia } from './media/media-deps';
import { uploadMedia } from './media/upload-media';
import { uploadStatus } from './media/upload-status';
import { type ApiRoute, registerRoutes } from './route';
import { getUsage } from './usage/get-usage';
import { createWebhook } from './webhooks/create-webhook';
import { deleteWebhook } from './webhooks/delete-webhook';
import { getWebhook } from './webhooks/get-webhook';
import { listWebhookDeliveries } from './webhooks/list-webhook-deliveries';
import { listWebhooks } from './webhooks/list-webhooks';
import { retryWebhookDelivery } from './webhooks/retry-webhook-delivery';
import { rotateWebhookSecret } from './webhooks/rotate-webhook-secret';
import { testWebhook } from './webhooks/test-webhook';
import { updateWebhook } from './webhooks/update-webhook';

/** The hand-written routes, in the order they are registered (and listed in the OpenAPI document). */
const ROUTES: readonly ApiRoute[] = [
  listAccounts,
  disconnectAccount,
  accountStatus,
  jobStatus,
  cancelJob,
  listJobs,
  createWebhook,
  listWebhooks,
  getWebhook,
  updateWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  testWebhook,
  listWebhookDeliveries,
  retryWebhookDelivery,
  listEvents,
  streamEvents,
  createKey,
  listKeys,
  ownKey,
  getKey,
  updateKey,
  deleteKey,
  getUsage,
  listAudit,
];
const MEDIA_ROUTES: readonly ApiRoute<MediaDeps>[] = [uploadMedia, uploadStatus, downloadMedia];

/** The hand-written routes' examples by operation id, for the OpenAPI document (openapi.ts). */
export const ROUTE_EXAMPLES: Record<string, OperationExample> = Object.fromEntries(
  [...ROUTES, ...MEDIA_ROUTES].flatMap((route) => (route.example ? [[route.name, route.example]] : [])),
);

/** Registers every hand-written route of the API (beside the operations' routes). */
export async function registerApiRoutes(
  app: FastifyInstance,
  context: ApiContext,
  connected: ConnectedAccounts,
): Promise<void> {
  const deps = { context, connected };
  registerRoutes(app, ROUTES, deps);
  registerRoutes(app, MEDIA_ROUTES, await prepareMedia(app, deps));
}
