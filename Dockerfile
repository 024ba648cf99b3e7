# One image for the API, the worker, the listener, the webhook delivery and the sandbox; docker-compose.yml picks the entry per service.
FROM node:20-bookworm-slim
ENV PNPM_HOME=/pnpm PATH=/pnpm:$PATH NODE_ENV=production
RUN npm install -g pnpm@10
WORKDIR /app
COPY pnpm-lock.yaml pnpm-workspace.yaml package.json ./
COPY apps/api/package.json apps/api/
COPY apps/worker/package.json apps/worker/
COPY apps/webhooks/package.json apps/webhooks/
COPY apps/listener/package.json apps/listener/
COPY apps/platform-sim/package.json apps/platform-sim/
COPY packages/contract/package.json packages/contract/
COPY packages/operations/package.json packages/operations/
COPY packages/platform-client/package.json packages/platform-client/
COPY packages/queue/package.json packages/queue/
COPY packages/store/package.json packages/store/
COPY packages/config/package.json packages/config/
COPY packages/secrets/package.json packages/secrets/
COPY packages/events/package.json packages/events/
COPY packages/media-spool/package.json packages/media-spool/
COPY packages/platform-access/package.json packages/platform-access/
COPY packages/process/package.json packages/process/
RUN pnpm install --frozen-lockfile
COPY . .
USER node
CMD ["node", "--import", "tsx", "apps/api/src/main.ts"]
