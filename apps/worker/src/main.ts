import { runProcess } from '@cg/process';
import { createGatewayWorker } from './index';

await runProcess('worker', createGatewayWorker, 'stopping: no new jobs, finishing in-flight ones');
