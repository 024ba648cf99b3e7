import { type Envelope, type ErrorBody, envelope, errorBody, GatewayError, type Outcome } from '@cg/contract';
import type { JobState, OperationsQueue, StoredOutcome, WaitResult } from '@cg/queue';
import type { Keyring } from '@cg/secrets';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiConfig } from './context';

/**
 * Sends what a job came to: its envelope, its error, or 202 with where to look later. The same
 * function answers the original request and `GET /jobs/{id}`, so both give the same status and body.
 */
export function sendResult(
  reply: FastifyReply,
  request: FastifyRequest,
  jobId: string,
  result: WaitResult,
  deps: { keyring: Keyring; config: ApiConfig },
): FastifyReply {
  request.jobId = jobId;
  if (result.state === 'completed') {
    const body = envelope(openOutcome(result.outcome, jobId, deps.keyring));
    return reply.status(body.statusCode).send(body);
  }
  if (result.state === 'failed') throw GatewayError.fromWire(result.failedReason);
  const statusUrl = jobStatusUrl(request, jobId, deps.config);
  return reply
    .status(202)
    .header('location', statusUrl)
    .send(accepted(jobId, result.jobState, statusUrl));
}

/**
 * What `GET /jobs/{jobId}` answers for a job, as a value (the job listing's): its envelope, its error
 * body, or the 202 envelope; the HTTP status is the body's `statusCode`.
 */
export function answerOf(
  request: FastifyRequest,
  jobId: string,
  result: WaitResult,
  deps: { keyring: Keyring; config: ApiConfig },
): Envelope | ErrorBody {
  if (result.state === 'completed') return envelope(openOutcome(result.outcome, jobId, deps.keyring));
  if (result.state === 'failed') return errorBody(GatewayError.fromWire(result.failedReason), request.id);
  return accepted(jobId, result.jobState, jobStatusUrl(request, jobId, deps.config));
}

/**
 * Answers a request just submitted: as `sendResult`, and one answered 202 has its end told as a
 * jobs.completed or jobs.failed event (apps/webhooks tells it). Polls and replays are not noted again.
 */
export async function sendSubmitted(
  reply: FastifyReply,
  request: FastifyRequest,
  jobId: string,
  result: WaitResult,
  deps: { keyring: Keyring; config: ApiConfig; queue: Pick<OperationsQueue, 'awaitCallback'> },
): Promise<FastifyReply> {
  if (result.state === 'pending') await deps.queue.awaitCallback(jobId);
  // Where the request's id meets its job's: the worker's lines name both.
  request.log.debug({ jobId, state: result.state }, 'job submitted');
  return sendResult(reply, request, jobId, result, deps);
}

export function accepted(jobId: string, state: JobState, statusUrl: string): Envelope {
  return envelope({ statusCode: 202, message: 'Accepted', data: { jobId, state, statusUrl } });
}

/** A finished job's outcome, opened when it was sealed. */
export function openOutcome(stored: StoredOutcome, jobId: string, keyring: Keyring): Outcome {
  return 'sealed' in stored ? keyring.openJson<Outcome>(stored.sealed, jobId) : stored;
}

/** A host name or address, with a port or without: what a Host header may be put into a URL as. */
const HOST = /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?$/;

export function jobStatusUrl(request: FastifyRequest, jobId: string, config: ApiConfig): string {
  // Without PUBLIC_URL, from the request's Host; a request without one (HTTP/1.0), or with one that
  // is no host name (`a"b<script>`), gets a path alone.
  const base = config.PUBLIC_URL ?? (HOST.test(request.host) ? `${request.protocol}://${request.host}` : '');
  return `${base.replace(/\/$/, '')}/api/${config.PLATFORM_SLUG}/jobs/${jobId}`;
}
