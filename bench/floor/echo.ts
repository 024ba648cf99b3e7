/**
 * The floor scenario's HTTP peer (bench/scenarios/floor.ts): answers every request with a small JSON
 * body at once, so a round trip to it is one loopback HTTP hop between two processes. Not shipped.
 */
import { createServer } from 'node:http';

const env = process.env;
const port = Number(env.PORT);
const server = createServer((_request, response) => {
  response.setHeader('content-type', 'application/json');
  response.end('{"success":true}');
}).listen(port, '127.0.0.1');

for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, () => server.close(() => process.exit(0)));
