# One image for the API (with the web console built in), the worker, the listener, the webhook
# delivery and the sandbox; docker-compose.yml picks the entry per service.
FROM node:20-bookworm-slim
ENV PNPM_HOME=/pnpm PATH=/pnpm:$PATH
RUN npm install -g pnpm@10
WORKDIR /app
COPY pnpm-lock.yaml pnpm-workspace.yaml package.json ./
COPY apps/api/package.json apps/api/
COPY apps/console/package.json apps/console/
COPY apps/listener/package.json apps/listener/
COPY apps/platform-sim/package.json apps/platform-sim/
COPY apps/webhooks/package.json apps/webhooks/
COPY apps/worker/package.json apps/worker/
COPY packages/config/package.json packages/config/
COPY packages/contract/package.json packages/contract/
COPY packages/events/package.json packages/events/
COPY packages/media-spool/package.json packages/media-spool/
COPY packages/metrics/package.json packages/metrics/
COPY packages/operations/package.json packages/operations/
COPY packages/platform-access/package.json packages/platform-access/
COPY packages/platform-client/package.json packages/platform-client/
COPY packages/process/package.json packages/process/
COPY packages/queue/package.json packages/queue/
COPY packages/sdk/package.json packages/sdk/
COPY packages/secrets/package.json packages/secrets/
COPY packages/store/package.json packages/store/
# Every workspace's dependencies, development ones included: the apps run through tsx and the
# console is built with Vite.
RUN pnpm install --frozen-lockfile
COPY . .
RUN pnpm --filter @cg/console build
ENV NODE_ENV=production
USER node
CMD ["node", "--import", "tsx", "apps/api/src/main.ts"]
