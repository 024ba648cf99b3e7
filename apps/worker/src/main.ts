import { runProcess } from '@cg/config';
import { createGatewayWorker } from './index';

await runProcess('worker', createGatewayWorker, 'stopping: no new jobs, finishing in-flight ones');
