import { type Static, Type } from 'typebox';
import { dollarsToMills } from './money';
import { PlatformId, Text, UnixMs } from './schemas';

/**
 * The contract's Media permissions object (send message; later mass messages and automated
 * messages), its checks, and its form upstream: `permissions.permissionFlags[]` entries of an
 * account-media offer (`POST /account/media`, `/account/media/bundle`).
 */

export const MIN_PPV_DOLLARS = 1;
export const MAX_PPV_DOLLARS = 500;
export const MAX_MEDIA = 50;

/**
 * access_type values onto the permission bits of an offer's entry. GUESS (docs/upstream-decisions.md,
 * message media): the bits are in the public sources (1 price, 2 following, 4 subscription tier, 128
 * private list), the mapping onto access_type is inferred; limited_time has no bit, only the entry's
 * validAfter/validBefore. The sandbox keeps the same table (`OFFER_PERMISSION_BITS`).
 */
export const PERMISSION_BITS = { ppv: 1, follow: 2, subscription: 4, list: 128, limited_time: 0 } as const;
type AccessName = keyof typeof PERMISSION_BITS;
const ACCESS_NAMES = Object.keys(PERMISSION_BITS) as AccessName[];

const AccessName = Type.String({
  pattern: `^(${ACCESS_NAMES.join('|')})$`,
  description: `one of ${ACCESS_NAMES.join(', ')}`,
});
const AccessType = Type.Union(
  [AccessName, Type.Array(AccessName, { uniqueItems: true, maxItems: ACCESS_NAMES.length })],
  { description: 'ppv, subscription, follow, list, limited_time; one or several (all must hold)' },
);
const Price = Type.Number({
  minimum: MIN_PPV_DOLLARS,
  maximum: MAX_PPV_DOLLARS,
  description: `dollars, ${MIN_PPV_DOLLARS} to ${MAX_PPV_DOLLARS}; required with ppv, refused otherwise`,
});
const Label = (description: string) => Text(description, { maxLength: 200 });

const ruleFields = {
  price: Type.Optional(Price),
  subscriptionTierId: Type.Optional(PlatformId('with subscription: only this tier')),
  subscriptionTierName: Type.Optional(Label('display label only')),
  listId: Type.Optional(PlatformId('required with list: members of this fan list')),
  listLabel: Type.Optional(Label('display label only')),
  validAfter: Type.Optional(UnixMs('Unix ms; with limited_time, access from then')),
  validBefore: Type.Optional(UnixMs('Unix ms; with limited_time, access until then')),
};

export const PermissionRule = Type.Object({ access_type: AccessType, ...ruleFields });
export type PermissionRule = Static<typeof PermissionRule>;

const MediaRef = Type.Union([
  Type.String({ pattern: '^\\d{1,19}$', description: 'a vault media id' }),
  Type.Object({
    mediaId: PlatformId('a vault media id'),
    previewId: Type.Optional(PlatformId('vault media shown to fans without access')),
  }),
]);

/** The Media permissions fields, at the root of a body. */
export const mediaPermissionFields = {
  mediaIds: Type.Optional(
    Type.Array(MediaRef, {
      maxItems: MAX_MEDIA,
      description: 'vault media ids, or {mediaId, previewId}; strings and objects may be mixed',
    }),
  ),
  access_type: Type.Optional(AccessType),
  ...ruleFields,
  permissions: Type.Optional(
    Type.Array(PermissionRule, {
      maxItems: 20,
      description: 'alternatives: a fan who satisfies any one rule gets access; overrides the root fields',
    }),
  ),
};
const MediaPermissions = Type.Object(mediaPermissionFields);
export type MediaPermissions = Static<typeof MediaPermissions>;

const ROOT_RULE_FIELDS = [
  'access_type',
  'price',
  'subscriptionTierId',
  'subscriptionTierName',
  'listId',
  'listLabel',
  'validAfter',
  'validBefore',
] as const;

const accessList = (access: PermissionRule['access_type'] | undefined): AccessName[] =>
  (access === undefined ? [] : Array.isArray(access) ? access : [access]) as AccessName[];

/** One rule's checks (rule 5), its fields named with `at` ('' at the root, 'permissions[0].'). */
function checkRule(rule: Partial<PermissionRule>, at: string): string | undefined {
  const access = accessList(rule.access_type);
  const ppv = access.includes('ppv');
  if (ppv && rule.price === undefined)
    return `${at}price is required with access_type ppv (dollars, 1 to 500)`;
  if (!ppv && rule.price !== undefined)
    return `${at}price is only for access_type ppv; without ppv the media is not sold`;
  if (access.includes('list') && rule.listId === undefined)
    return `${at}listId is required with access_type list`;
  if (access.includes('limited_time') && rule.validAfter === undefined && rule.validBefore === undefined)
    return `${at}validAfter or validBefore is required with access_type limited_time`;
  if (rule.validAfter !== undefined && rule.validBefore !== undefined && rule.validAfter >= rule.validBefore)
    return `${at}validAfter must be before validBefore`;
  return undefined;
}

/** The rules that gate the media: `permissions` when present (rule 4), else the root fields' one. */
function effectiveRules(body: MediaPermissions): PermissionRule[] {
  if (body.permissions !== undefined) return body.permissions;
  const access = accessList(body.access_type);
  if (access.length === 0) return [];
  return [{ ...body, access_type: access }];
}

/** The contract's Media permissions errors (rule 5); returns the reason for a 400. */
export function checkMediaPermissions(body: MediaPermissions): string | undefined {
  const hasMedia = (body.mediaIds?.length ?? 0) > 0;
  if (body.permissions !== undefined) {
    // Rule 4: the root fields are ignored; each alternative is checked on its own.
    for (const [index, rule] of body.permissions.entries()) {
      const reason = checkRule(rule, `permissions[${index}].`);
      if (reason) return reason;
    }
    if (body.permissions.length > 0 && !hasMedia)
      return 'mediaIds is required with permissions: there is no media to gate';
    return undefined;
  }
  const reason = checkRule(body, '');
  if (reason) return reason;
  const gated = ROOT_RULE_FIELDS.find((field) => body[field] !== undefined);
  if (gated !== undefined && !hasMedia)
    return `mediaIds is required with ${gated}: there is no media to gate`;
  return undefined;
}

/** The media of the body, each with its preview (null when none). */
export function mediaRefs(body: MediaPermissions): { mediaId: string; previewId: string | null }[] {
  return (body.mediaIds ?? []).map((ref) =>
    typeof ref === 'string'
      ? { mediaId: ref, previewId: null }
      : { mediaId: ref.mediaId, previewId: ref.previewId ?? null },
  );
}

export interface UpstreamPermissionEntry {
  type: number;
  flags: number;
  /** Mills, on a rule with the ppv bit; 0 otherwise. */
  price: number;
  /** JSON text keyed by bit: {"1": "{\"price\":9990}", "4": "{\"subscriptionTierId\":…}"}. */
  metadata: string;
  validAfter?: number;
  validBefore?: number;
}

/**
 * The rules upstream: one entry per rule, the conditions of a rule combined in its flags (rule 2),
 * the entries ORed (rule 3); none means free (rule 1). Prices become mills here.
 */
export function upstreamPermissions(body: MediaPermissions): UpstreamPermissionEntry[] {
  return effectiveRules(body).map((rule) => {
    const access = accessList(rule.access_type);
    let flags = 0;
    const metadata: Record<string, string> = {};
    let price = 0;
    for (const name of access) flags |= PERMISSION_BITS[name];
    if (access.includes('ppv') && rule.price !== undefined) {
      price = dollarsToMills(rule.price);
      metadata[PERMISSION_BITS.ppv] = JSON.stringify({ price });
    }
    if (access.includes('subscription') && rule.subscriptionTierId !== undefined)
      metadata[PERMISSION_BITS.subscription] = JSON.stringify({
        subscriptionTierId: rule.subscriptionTierId,
        ...(rule.subscriptionTierName === undefined ? {} : { label: rule.subscriptionTierName }),
      });
    if (access.includes('list') && rule.listId !== undefined)
      metadata[PERMISSION_BITS.list] = JSON.stringify({
        listId: rule.listId,
        ...(rule.listLabel === undefined ? {} : { label: rule.listLabel }),
      });
    const window = access.includes('limited_time')
      ? {
          ...(rule.validAfter === undefined ? {} : { validAfter: rule.validAfter }),
          ...(rule.validBefore === undefined ? {} : { validBefore: rule.validBefore }),
        }
      : {};
    return { type: 0, flags, price, metadata: JSON.stringify(metadata), ...window };
  });
}
