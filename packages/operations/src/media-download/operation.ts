import { Type } from 'typebox';
import { defineOperation } from '../define';

/**
 * Internal (its route is the API's `POST /media/download`, which streams the spooled file back): a
 * platform CDN file fetched into the spool through the account's egress (some links open only from
 * the address that read them). A read: any of the tenant's connected accounts, or the one named by
 * `?accountId=`. The URL's host was checked by the API.
 */
export const mediaDownload = defineOperation({
  name: 'media-download',
  method: 'POST',
  path: '/media/download',
  summary: 'Internal: a platform CDN file fetched into the spool',
  tags: ['internal'],
  session: 'any',
  write: false,
  successStatus: 200,
  schemas: {
    querystring: Type.Object({ accountId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) }),
    body: Type.Object({
      cdnUrl: Type.String(),
      spool: Type.String({ description: 'the spool file to write' }),
      maxBytes: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
    }),
    data: Type.Object({ contentType: Type.String(), size: Type.Integer() }),
  },
  example: {
    query: {},
    body: {
      cdnUrl: 'https://cdn3.fansly.com/281/1.jpeg?Expires=1&Key-Pair-Id=K&Signature=S',
      spool: 'job_8fKq2LmZ.download',
      maxBytes: 524_288_000,
    },
  },
  run: async ({ body }, { files }) => files.download(body.cdnUrl, body.spool, body.maxBytes),
});
