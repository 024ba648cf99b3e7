import type { Logger } from '@cg/config';
import { GatewayError } from '@cg/contract';
import type { PublishEvent } from '@cg/events';
import type { Spool } from '@cg/media-spool';
import { findOperation, type OperationContext } from '@cg/operations';
import type { AccountSessions, Egress, Route } from '@cg/platform-access';
import { endpoints } from '@cg/platform-client';
import { type JobPayload, type ListenJobs, type Processor, RetryableError } from '@cg/queue';
import type { Keyring } from '@cg/secrets';
import type { Store, UsageRecorder } from '@cg/store';
import { AccountConnector } from './connector';
import { platformFailureNote, toFailure } from './failures';
import { fileTransfers } from './files';
import { CallMeter } from './metered';

export interface ProcessorDeps {
  egress: Egress;
  store: Store;
  keyring: Keyring;
  /** The accounts' platform sessions, renewed when they expire. */
  sessions: AccountSessions;
  /** Where connected accounts are handed to the listeners. */
  listen: Pick<ListenJobs, 'watch'>;
  /** Where the `accounts.*` events go. */
  publish: PublishEvent;
  /** Where media files pass through (uploads, downloads). */
  spool: Spool;
  /** The worker's logger; each job logs through a child of it (`jobLogger`). */
  log: Logger;
  /** Where the jobs' platform calls and events are counted (none: usage is off). */
  usage?: UsageRecorder;
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
export function createProcessor(deps: ProcessorDeps): Processor {
  return async (payload, job) => {
    const log = jobLogger(deps.log, payload, job.jobId);
    const started = performance.now();
    log.debug('job started');
    const op = findOperation(payload.op);
    if (!op) throw new GatewayError('INTERNAL', `no handler for operation ${payload.op}`);
    const input =
      payload.sealed === undefined ? payload.input : deps.keyring.openJson(payload.sealed, job.jobId);
    const loaded = await jobAccount(deps.store, payload, job);
    let statusCode: number = op.successStatus;
    const succeedWith = (status: number) => {
      statusCode = status;
    };
    const egress = deps.egress.withLog(log);
    const context = operationContext(deps, { op, payload, job, loaded, egress, succeedWith });
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
    return op.sealResult ? { sealed: deps.keyring.sealJson(outcome, job.jobId) } : outcome;
  };
}

/** An account record with its platform session, as the store reads them for a job. */
type LoadedAccount = NonNullable<Awaited<ReturnType<Store['accounts']['getWithSession']>>>;

/**
 * The job's account with its session, or undefined for an operation without one. An account gone
 * since the API admitted the job (its lane's state is then set to expire) or waiting for a new
 * login fails the job.
 */
async function jobAccount(
  store: Store,
  { tenantId, accountId }: JobPayload,
  job: JobContext,
): Promise<LoadedAccount | undefined> {
  if (accountId === undefined) return undefined;
  const loaded = await store.accounts.getWithSession(tenantId, accountId);
  if (!loaded) {
    await job.accountGone();
    throw new GatewayError('NOT_FOUND', 'the account was disconnected');
  }
  if (loaded.record.status === 'reauth_required')
    throw new GatewayError(
      'REAUTH_REQUIRED',
      'the platform needs a new login for this account: connect it again',
    );
  return loaded;
}

type JobContext = Parameters<Processor>[1];

interface JobRun {
  op: NonNullable<ReturnType<typeof findOperation>>;
  payload: JobPayload;
  job: JobContext;
  loaded: LoadedAccount | undefined;
  /** The shared egress, logging through the job's logger. */
  egress: Egress;
  /** Sets the status of the job's answer. */
  succeedWith: OperationContext['succeedWith'];
}

/** What an operation's run is given: its account's platform calls, file transfers, connector. */
function operationContext(
  deps: ProcessorDeps,
  { op, payload, job: queued, loaded, egress, succeedWith }: JobRun,
): OperationContext {
  const { tenantId, accountId } = payload;
  // Counts the calls that leave for the platform, and those that fail (metered.ts).
  const meter = deps.usage === undefined ? undefined : new CallMeter(deps.usage, payload);
  const job = meter?.counting(queued) ?? queued;
  const run = <T>(call: () => Promise<T>) => (meter === undefined ? call() : meter.run(call));
  // The events the job publishes (a connection's) count under the key that queued it.
  const publish: PublishEvent = (tenant, event) => deps.publish(tenant, { keyId: payload.keyId, ...event });
  const account = loaded?.record;
  const noAccount = (what: string) =>
    new GatewayError('INTERNAL', `operation ${op.name} has no account ${what}`);
  // The session read with the record serves the job's first call; later ones read it afresh (a
  // re-login may have replaced it).
  let session = loaded?.session;
  // Found at the first call: a job that makes none costs no egress look-up.
  let route: Route | undefined;
  const accountRoute = async (): Promise<Route> => {
    if (account === undefined) throw noAccount('session');
    route ??= await egress.ofAccount(tenantId, account);
    return route;
  };
  return {
    succeedWith,
    tenantId,
    account,
    call: async (endpoint, args) => {
      if (accountId === undefined || account === undefined) throw noAccount('session');
      const write = endpoints[endpoint].write;
      const known = session;
      session = undefined;
      const result = await run(() =>
        notedCall(
          { health: deps.store.health, op, tenantId, accountId },
          () => job.beforeCall(write),
          async (beforeSend) =>
            deps.sessions.call(tenantId, accountId, await accountRoute(), endpoint, args, beforeSend, known),
        ),
      );
      if (write) job.afterWrite();
      return result as never;
    },
    files:
      meter === undefined
        ? fileTransfers(deps.spool, accountRoute, job)
        : meter.files(fileTransfers(deps.spool, accountRoute, job)),
    connector: new AccountConnector(egress, deps.store.accounts, tenantId, job, deps.listen, publish),
    claimWindow: async (name, ms) => {
      if (accountId === undefined) throw noAccount('for a window');
      const claim = await deps.store.pacing.claim(tenantId, accountId, name, ms);
      return claim ? () => claim.release() : null;
    },
  };
}

/**
 * A platform call of the job's account, its outcome noted for the account's status (packages/store
 * `AccountHealthStore`: throttled, not waited for). What stops the call before it leaves
 * (`beforeSend`: the write ledger, the gap) is no failure of the platform's.
 */
async function notedCall<T>(
  of: { health: Store['health']; op: JobRun['op']; tenantId: string; accountId: string },
  beforeSend: () => Promise<void>,
  send: (beforeSend: () => Promise<void>) => Promise<T>,
): Promise<T> {
  let notSent = false;
  const guarded = () =>
    beforeSend().catch((error: unknown) => {
      notSent = true;
      throw error;
    });
  try {
    const result = await send(guarded);
    of.health.platformOk(of.tenantId, of.accountId);
    return result;
  } catch (error) {
    const note = notSent ? undefined : platformFailureNote(error, of.op);
    if (note) of.health.platformFailed(of.tenantId, of.accountId, note);
    throw error;
  }
}

const elapsed = (started: number) => Math.round(performance.now() - started);

/** A failure's stable code for a log line (never its message's details). */
function failureCode(failure: unknown): string {
  if (failure instanceof GatewayError) return failure.code;
  if (failure instanceof RetryableError) return failure.error.code;
  return failure instanceof Error ? failure.name : 'unknown';
}
