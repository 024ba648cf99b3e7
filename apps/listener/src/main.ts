import { runProcess } from '@cg/process';
import { createListener } from './index';

await runProcess('listener', createListener, 'stopping: handing the connections back to the other listeners');
