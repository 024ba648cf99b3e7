import { envelope, errorBody, GatewayError } from '@cg/contract';
import {
  addTextFormats,
  type Connector,
  type ConnectRequest,
  type ConnectResult,
  type OperationContext,
  type OperationDef,
  type OperationSchemas,
  operations,
} from '@cg/operations';
import { PlatformClient, PlatformError, type SessionAuth } from '@cg/platform-client';
import { type AccountRecord, newId, sha256 } from '@cg/store';
import Fastify, { type FastifyInstance, LogController } from 'fastify';

/**
 * THE BASELINE, for benchmarks only and never shipped: the gateway's routes and envelope with no
 * queue, no Redis and no worker. Each request runs its operation right here, through the same
 * operation definitions and the same platform client, so that a benchmark comparing the two measures
 * what the queue path costs and nothing else.
 */
/** The baseline serves no media routes: no operation it runs moves files. */
const noFiles: OperationContext['files'] = {
  putPart: () => Promise.reject(new GatewayError('INTERNAL', 'the baseline moves no files')),
  download: () => Promise.reject(new GatewayError('INTERNAL', 'the baseline moves no files')),
  discard: () => undefined,
};

export interface BaselineOptions {
  platformUrl: string;
  apiKey: string;
  /** Sockets to the platform; the platform client's default unless the gateway is given another. */
  platformConnections?: number | undefined;
  slug?: string;
}

interface Connected {
  record: AccountRecord;
  session: SessionAuth;
}

const TENANT = 'default';

type RequestParts = { params?: unknown; query?: unknown; body?: unknown };

export async function buildBaseline(options: BaselineOptions): Promise<FastifyInstance> {
  const client = new PlatformClient({
    baseUrl: options.platformUrl,
    ...(options.platformConnections === undefined ? {} : { connections: options.platformConnections }),
  });
  const accounts = new Map<string, Connected>();
  const connector = new MemoryConnector(client, accounts);
  /** Windows of claimWindow (single process: a map is enough). */
  const windows = new Map<string, number>();
  const keyHash = sha256(options.apiKey);

  // Like the gateway: a pino logger at warn with no per-request lines, and answers serialised with
  // JSON.stringify (the gateway's response schemas document, they do not serialise).
  const app = Fastify({
    logger: { level: 'warn' },
    logController: new LogController({ disableRequestLogging: true }),
    // The routes' schemas name the text formats, as the gateway's validators know them.
    ajv: { plugins: [addTextFormats] },
  });
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.setErrorHandler((error: Error & { validation?: unknown }, request, reply) => {
    const gatewayError =
      error instanceof GatewayError
        ? error
        : error.validation
          ? new GatewayError('BAD_REQUEST', 'invalid request')
          : new GatewayError('INTERNAL', 'the baseline failed to handle the request');
    return reply.status(gatewayError.statusCode).send(errorBody(gatewayError, request.id));
  });
  app.get('/healthz', async () => ({ status: 'ok' }));

  await app.register(
    async (api) => {
      // The gateway resolves keys in Redis; a proxy without a store compares against its one key.
      api.addHook('onRequest', async (request, reply) => {
        const key = request.headers['x-api-key'];
        if (typeof key !== 'string' || sha256(key) !== keyHash) {
          return reply
            .status(401)
            .send(errorBody(new GatewayError('UNAUTHORIZED', 'the API key is not valid'), request.id));
        }
        return undefined;
      });
      for (const op of operations as unknown as OperationDef<OperationSchemas>[]) {
        api.route({
          method: op.method,
          url: op.path,
          schema: {
            ...(op.schemas.params ? { params: op.schemas.params } : {}),
            ...(op.schemas.querystring ? { querystring: op.schemas.querystring } : {}),
            ...(op.schemas.body ? { body: op.schemas.body } : {}),
          },
          handler: async (request, reply) => {
            const input = {
              params: request.params,
              query: request.query,
              body: request.body,
            } as RequestParts;
            const reason = op.check?.(input as never);
            if (reason !== undefined) throw new GatewayError('BAD_REQUEST', reason);
            const account = pickAccount(op, input, accounts);
            let statusCode = op.successStatus;
            const context: OperationContext = {
              succeedWith: (status) => {
                statusCode = status;
              },
              tenantId: TENANT,
              account: account?.record,
              call: (endpoint, args) => {
                if (!account)
                  throw new GatewayError('INTERNAL', `operation ${op.name} has no account session`);
                return client.call(account.session, endpoint, args);
              },
              connector,
              claimWindow: async (name, ms) => {
                const key = `${account?.record.accountId ?? ''}:${name}`;
                const now = Date.now();
                if ((windows.get(key) ?? 0) > now) return null;
                windows.set(key, now + ms);
                return async () => {
                  windows.delete(key);
                };
              },
              files: noFiles,
            };
            let data: unknown;
            try {
              data = await op.run(input as never, context);
            } catch (error) {
              throw toGatewayError(error);
            }
            const body = envelope({
              statusCode,
              message: op.successMessage ?? 'Success',
              data,
            });
            return reply.status(body.statusCode).send(body);
          },
        });
      }
    },
    { prefix: `/api/${options.slug ?? 'fansly'}` },
  );
  app.addHook('onClose', async () => {
    await client.close();
  });
  return app;
}

function pickAccount(
  op: OperationDef<OperationSchemas>,
  input: RequestParts,
  accounts: Map<string, Connected>,
): Connected | undefined {
  if (op.session === 'none') return undefined;
  const named =
    op.session === 'path'
      ? (input.params as { accountId: string }).accountId
      : (input.query as { accountId?: string } | undefined)?.accountId;
  const account = named === undefined ? accounts.values().next().value : accounts.get(named);
  if (!account) throw new GatewayError('NOT_FOUND', `account ${named ?? '(any)'} not found`);
  return account;
}

/**
 * What a caller sees of a platform failure, by class only. The gateway's full mapping lives in the
 * worker (not a package); the benchmarks only count statuses, so the classes are what must agree.
 */
function toGatewayError(error: unknown): unknown {
  if (!(error instanceof PlatformError)) return error;
  if (error.retry === 'retryable') {
    const wait = error.retryAfterMs === undefined ? undefined : Math.ceil(error.retryAfterMs / 1000);
    return new GatewayError('UPSTREAM_UNAVAILABLE', 'the platform is unavailable; try again later', wait);
  }
  if (error.kind === 'not_found') return new GatewayError('NOT_FOUND', 'the platform has no such object');
  if (error.kind === 'invalid_credentials')
    return new GatewayError('INVALID_CREDENTIALS', 'the platform rejected the username or password');
  return new GatewayError(
    'UPSTREAM_ERROR',
    'the platform answered in a way the baseline does not understand',
  );
}

/** Connected accounts live in this process's memory: a proxy with no store has nowhere else. */
class MemoryConnector implements Connector {
  constructor(
    private readonly client: PlatformClient,
    private readonly accounts: Map<string, Connected>,
  ) {}

  async connect(request: ConnectRequest): Promise<ConnectResult> {
    const deviceId = await this.client.getDeviceId();
    const outcome = await this.client.login({
      username: request.username,
      password: request.password,
      deviceId,
    });
    // Benchmark accounts have no second factor; a proxy without a store could not keep the pending token.
    if (outcome.kind === 'twofa') throw new GatewayError('BAD_REQUEST', 'the baseline does not do 2FA');
    const now = Date.now();
    const record: AccountRecord = {
      accountId: newId('acct'),
      tenantId: TENANT,
      name: request.name,
      countryCode: request.countryCode,
      platformAccountId: String(outcome.session.accountId),
      username: request.username,
      status: 'connected',
      egressId: '',
      egressLabel: '',
      createdAt: now,
      updatedAt: now,
    };
    this.accounts.set(record.accountId, { record, session: { token: outcome.session.token, deviceId } });
    return { kind: 'connected', accountId: record.accountId, session: { ...outcome.session } };
  }

  verifyTwofa(): Promise<ConnectResult> {
    return Promise.reject(new GatewayError('BAD_REQUEST', 'the baseline does not do 2FA'));
  }
}
