import { accountRoutes } from './accounts';
import { authRoutes } from './auth';
import { automationRoutes } from './automations';
import { broadcastRoutes } from './broadcasts';
import { chatRoutes } from './chats';
import { linkRoutes } from './links';
import { listRoutes } from './lists';
import { mediaRoutes } from './media';
import { moneyRoutes } from './money';
import { notificationRoutes } from './notifications';
import { postRoutes } from './posts';
import { statsRoutes } from './stats';
import type { ApiRoute } from './types';
import { vaultRoutes } from './vault';

/** Every /api/v1 route of the sandbox, in one explicit list. */
export const apiRoutes: readonly ApiRoute[] = [
  ...authRoutes,
  ...accountRoutes,
  ...listRoutes,
  ...chatRoutes,
  ...automationRoutes,
  ...broadcastRoutes,
  ...postRoutes,
  ...moneyRoutes,
  ...notificationRoutes,
  ...vaultRoutes,
  ...statsRoutes,
  ...mediaRoutes,
  ...linkRoutes,
];
