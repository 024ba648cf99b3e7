import { Spool } from '@cg/media-spool';
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { type CdnPrefix, parseCdnUrls } from '../../cdn-urls';
import type { RouteDeps } from '../route';

/**
 * What the media routes' handlers are given: the spool their files pass through, the CDN links a
 * download may name, the size limit of a file.
 */
export interface MediaDeps extends RouteDeps {
  spool: Spool;
  cdn: CdnPrefix[];
  maxBytes: number;
}

/** The media routes' parts, the spool's directory made; multipart bodies taken, one file each. */
export async function prepareMedia(app: FastifyInstance, deps: RouteDeps): Promise<MediaDeps> {
  const { config } = deps.context;
  const spool = new Spool(config.MEDIA_SPOOL_DIR).ensure();
  const cdn = parseCdnUrls(config.MEDIA_CDN_URLS);
  const maxBytes = config.MEDIA_MAX_BYTES;
  await app.register(multipart, { limits: { fileSize: maxBytes, files: 1, fields: 10, parts: 11 } });
  return { ...deps, spool, cdn, maxBytes };
}
