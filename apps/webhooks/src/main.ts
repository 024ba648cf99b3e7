import { runProcess } from '@cg/process';
import { createWebhookDelivery } from './index';

await runProcess('webhooks', createWebhookDelivery, 'stopping: no new deliveries, finishing in-flight ones');
