/** Process entry of the baseline proxy (see server.ts); the only place it reads the environment. */
import { buildBaseline } from './server';

const env = process.env;
const required = (name: string): string => {
  const value = env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const app = await buildBaseline({
  platformUrl: required('PLATFORM_URL'),
  apiKey: required('BASELINE_API_KEY'),
  platformConnections: env.PLATFORM_CONNECTIONS ? Number(env.PLATFORM_CONNECTIONS) : undefined,
});
await app.listen({ host: '127.0.0.1', port: Number(required('PORT')) });

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
