import type { Logger } from '@cg/config';
import { GatewayError } from '@cg/contract';
import type { PublishEvent } from '@cg/events';
import { findOperation, type OperationContext, type Spool } from '@cg/operations';
import { endpoints } from '@cg/platform-client';
import { type JobPayload, type ListenJobs, type Processor, RetryableError } from '@cg/queue';
import type { Keyring } from '@cg/secrets';
import type { Store } from '@cg/store';
import { AccountConnector } from './connector';
import type { Egress, Route } from './egress';
import { toFailure } from './failures';
import { fileTransfers } from './files';
import { AccountSessions, reauthEvents } from './sessions';

export interface ProcessorDeps {
  egress: Egress;
  store: Store;
  keyring: Keyring;
  /** How long a re-login may hold its account's lock (`AccountSessions`). */
  reloginLockMs: number;
  /** Where connected accounts are handed to the listeners. */
  listen: Pick<ListenJobs, 'watch'>;
  /** Where the `accounts.*` events go. */
  publish: PublishEvent;
  /** Where media files pass through (uploads, downloads). */
  spool: Spool;
  /** The worker's logger; each job logs through a child of it (`jobLogger`). */
  log: Logger;
}

/**
 * A job's logger: every line names the API request that queued the job, the job and its operation,
 * its platform calls' lines included (they go through the job's `Egress`). One per request, a
 * request of a batch included, so each batched request's lines carry its own request id.
 */
function jobLogger(log: Logger, payload: JobPayload, jobId: string): Logger {
  return log.child({
    ...(payload.requestId === undefined ? {} : { requestId: payload.requestId }),
    jobId,
    op: payload.op,
  });
}

/** Runs one job: finds its operation, opens its sealed input, lends it a platform session. */
export function createProcessor({
  egress: sharedEgress,
  store,
  keyring,
  reloginLockMs,
  listen,
  publish,
  spool,
  log: workerLog,
}: ProcessorDeps): Processor {
  const sessions = new AccountSessions(store.accounts, reloginLockMs, reauthEvents(store, publish));
  return async (payload, job) => {
    const log = jobLogger(workerLog, payload, job.jobId);
    const started = performance.now();
    log.debug('job started');
    const egress = sharedEgress.withLog(log);
    const op = findOperation(payload.op);
    if (!op) throw new GatewayError('INTERNAL', `no handler for operation ${payload.op}`);
    const input = payload.sealed === undefined ? payload.input : keyring.openJson(payload.sealed, job.jobId);
    const { tenantId, accountId } = payload;
    const loaded =
      accountId === undefined ? undefined : await store.accounts.getWithSession(tenantId, accountId);
    const account = loaded?.record;
    // The session read with the record serves the job's first call; later ones read it afresh (a
    // re-login may have replaced it).
    let session = loaded?.session;
    // Found at the first call: a job that makes none costs no egress look-up.
    let route: Route | undefined;
    /** The account's route to the platform: the job's account, or none for an operation without one. */
    const accountRoute = async (): Promise<Route> => {
      if (accountId === undefined || account === undefined)
        throw new GatewayError('INTERNAL', `operation ${op.name} has no account session`);
      route ??= await egress.ofAccount(tenantId, account);
      return route;
    };
    if (accountId !== undefined) {
      if (!account) {
        // Admitted while the API still trusted the account: its lane's state is set to expire.
        await job.accountGone();
        throw new GatewayError('NOT_FOUND', 'the account was disconnected');
      }
      if (account.status === 'reauth_required') {
        throw new GatewayError(
          'REAUTH_REQUIRED',
          'the platform needs a new login for this account: connect it again',
        );
      }
    }
    let statusCode = op.successStatus;
    const context: OperationContext = {
      succeedWith: (status) => {
        statusCode = status;
      },
      tenantId,
      account: account ?? undefined,
      call: async (endpoint, args) => {
        if (accountId === undefined || account === undefined)
          throw new GatewayError('INTERNAL', `operation ${op.name} has no account session`);
        const write = endpoints[endpoint].write;
        const known = session;
        session = undefined;
        const result = await sessions.call(
          tenantId,
          accountId,
          await accountRoute(),
          endpoint,
          args,
          () => job.beforeCall(write),
          known,
        );
        if (write) job.afterWrite();
        return result as never;
      },
      files: fileTransfers(spool, accountRoute, job),
      connector: new AccountConnector(egress, store.accounts, tenantId, job, listen, publish),
      claimWindow: async (name, ms) => {
        if (accountId === undefined)
          throw new GatewayError('INTERNAL', `operation ${op.name} has no account for a window`);
        const claim = await store.pacing.claim(tenantId, accountId, name, ms);
        return claim ? () => claim.release() : null;
      },
    };
    let data: unknown;
    try {
      data = await op.run(input as never, context);
    } catch (error) {
      const failure = toFailure(error, op);
      // What becomes of it (retry, wait, fail) is the queue's to say: its own line follows.
      log.debug({ code: failureCode(failure), ms: elapsed(started) }, 'job attempt failed');
      throw failure;
    }
    log.debug({ statusCode, ms: elapsed(started) }, 'job done');
    const outcome = { statusCode, message: op.successMessage ?? 'Success', data };
    return op.sealResult ? { sealed: keyring.sealJson(outcome, job.jobId) } : outcome;
  };
}

const elapsed = (started: number) => Math.round(performance.now() - started);

/** A failure's stable code for a log line (never its message's details). */
function failureCode(failure: unknown): string {
  if (failure instanceof GatewayError) return failure.code;
  if (failure instanceof RetryableError) return failure.error.code;
  return failure instanceof Error ? failure.name : 'unknown';
}
