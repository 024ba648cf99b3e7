import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { AccountMedia, MediaOfferItem } from '../../src/chat-media-stats/operation';
import { UnreadMessageInteraction } from '../../src/chats-unread/operation';
import { ConnectionSession } from '../../src/common/connect-result';
import { ListMember, ListMemberWithSortId } from '../../src/common/list-member';
import { Post } from '../../src/common/post';
import { PlatformProfile } from '../../src/common/profile';
import { type ContractRecord, f, type Kind, type RecordValue, record } from '../../src/common/record';
import { CreatedTrackingLink, TrackingLink } from '../../src/common/tracking-link';
import { DeletedVaultAlbum, VaultAlbum, VaultMedia } from '../../src/common/vault-album';
import { EarningsTransaction } from '../../src/earnings-transactions/operation';
import { FollowingEntry } from '../../src/following/operation';
import { List } from '../../src/lists-create/operation';
import { RecipientGroup, ScheduledMassMessage } from '../../src/mass-messages-scheduled/operation';
import { Reaction } from '../../src/messages-like/operation';
import { PayoutMethod } from '../../src/payout-delete/operation';
import { Wall } from '../../src/posts-walls/operation';
import { SubscriberStats, Subscription } from '../../src/subscribers/operation';

/** One field of kind `kind`, read from `{ x: value }` (or from `{}` for a missing value). */
function one<K extends Kind>(kind: K, value?: unknown) {
  const converted: Record<string, unknown> = record({ x: kind }).from(
    value === undefined ? {} : { x: value },
  );
  return converted.x;
}

/** Missing, null, a numeric string, a wrong type: what the platform may send instead of the value. */
const cases = (kind: Kind) => ({
  missing: one(kind),
  null: one(kind, null),
  numericString: one(kind, '12'),
  wrongType: one(kind, { a: 1 }),
});

describe('field kinds', () => {
  it('id and string: the text, "" when missing or null, numbers written out', () => {
    for (const kind of [f.id(), f.string()]) {
      expect(cases(kind)).toEqual({
        missing: '',
        null: '',
        numericString: '12',
        wrongType: '[object Object]',
      });
      expect(one(kind, 42)).toBe('42');
      expect(one(kind, 'abc')).toBe('abc');
    }
    // A fallback of one's own, for a missing or null value only.
    expect(
      [undefined, null, '', 7].map((value) => one(f.id("'0' if none", { fallback: '0' }), value)),
    ).toEqual(['0', '0', '', '7']);
  });

  it('number: the number, 0 when missing, null or not a number', () => {
    expect(cases(f.number())).toEqual({ missing: 0, null: 0, numericString: 12, wrongType: 0 });
    expect(one(f.number(), 12.5)).toBe(12.5);
    expect(one(f.number(), 'abc')).toBe(0);
    expect(one(f.number(), true)).toBe(1);
  });

  it('boolean: true only for true, 1, "1" and "true"', () => {
    expect(cases(f.boolean())).toEqual({
      missing: false,
      null: false,
      numericString: false,
      wrongType: false,
    });
    for (const yes of [true, 1, '1', 'true']) expect(one(f.boolean(), yes)).toBe(true);
    for (const no of [false, 0, '0', 'false', 'yes', 2]) expect(one(f.boolean(), no)).toBe(false);
  });

  it('timestamp: Unix ms as sent; timestampFromSeconds: seconds × 1000', () => {
    expect(cases(f.timestamp())).toEqual({ missing: 0, null: 0, numericString: 12, wrongType: 0 });
    expect(one(f.timestamp(), 1_700_000_000_123)).toBe(1_700_000_000_123);
    expect(cases(f.timestampFromSeconds())).toEqual({
      missing: 0,
      null: 0,
      numericString: 12_000,
      wrongType: 0,
    });
    expect(one(f.timestampFromSeconds(), 1_700_000_000)).toBe(1_700_000_000_000);
  });

  it('centsFromMills: mills → whole cents, 0 when missing or not a number', () => {
    expect(cases(f.centsFromMills())).toEqual({ missing: 0, null: 0, numericString: 1, wrongType: 0 });
    expect(one(f.centsFromMills(), 12_345)).toBe(1235);
    expect(one(f.centsFromMills(), '4990')).toBe(499);
    expect(one(f.centsFromMills(), Number.POSITIVE_INFINITY)).toBe(0);
  });

  it('jsonText: a string as sent, anything else serialised, the fallback when missing or null', () => {
    expect(cases(f.jsonText())).toEqual({
      missing: '{}',
      null: '{}',
      numericString: '12',
      wrongType: '{"a":1}',
    });
    expect(one(f.jsonText(), 7)).toBe('7');
    expect(one(f.jsonText('JSON list', { fallback: '[]' }))).toBe('[]');
  });

  it('nullable kinds: null when missing or null, else the inner conversion', () => {
    expect(cases(f.nullableString())).toEqual({
      missing: null,
      null: null,
      numericString: '12',
      wrongType: '[object Object]',
    });
    expect(cases(f.nullableNumber())).toEqual({ missing: null, null: null, numericString: 12, wrongType: 0 });
    expect(one(f.nullableString(), '')).toBe('');
    expect(one(f.nullableNumber(), '')).toBe(0);
    // emptyIsNull: "" is none too.
    expect(one(f.nullableString(undefined, { emptyIsNull: true }), '')).toBeNull();
    expect(one(f.nullableNumber(undefined, { emptyIsNull: true }), '')).toBeNull();
    expect(one(f.nullable(f.centsFromMills()), 120)).toBe(12);
    // An upstream name given inside is kept.
    expect(record({ x: f.nullable(f.from('y', f.number())) }).from({ y: '3' })).toEqual({ x: 3 });
  });

  it('unknown: passed on as sent, null when missing; object: {} unless an object', () => {
    expect(cases(f.unknown())).toEqual({
      missing: null,
      null: null,
      numericString: '12',
      wrongType: { a: 1 },
    });
    expect(cases(f.object())).toEqual({ missing: {}, null: {}, numericString: {}, wrongType: { a: 1 } });
  });

  it('array: each element converted, [] when not an array', () => {
    expect(cases(f.array(f.number()))).toEqual({ missing: [], null: [], numericString: [], wrongType: [] });
    expect(one(f.array(f.number()), ['1', 2, null])).toEqual([1, 2, 0]);
    expect(one(f.array(f.unknown()), [{ a: 1 }, 'x'])).toEqual([{ a: 1 }, 'x']);
  });

  it('custom: its own schema and converter', () => {
    const idOrNumber = f.custom(Type.Union([Type.String(), Type.Number()]), (value) =>
      typeof value === 'number' ? value : String(value ?? ''),
    );
    expect(cases(idOrNumber)).toEqual({
      missing: '',
      null: '',
      numericString: '12',
      wrongType: '[object Object]',
    });
    expect(one(idOrNumber, 12)).toBe(12);
  });

  it('puts each description into the schema, with the defaults of timestamps, money and JSON text', () => {
    const Described = record({
      plain: f.number(),
      said: f.string('a label'),
      at: f.timestamp(),
      cents: f.centsFromMills(),
      json: f.jsonText(),
      maybe: f.nullableNumber('days'),
    });
    const { properties } = Described.schema;
    expect(properties.plain).toEqual({ type: 'number' });
    expect(properties.said).toEqual({ type: 'string', description: 'a label' });
    expect(properties.at).toEqual({ type: 'number', description: 'Unix ms' });
    expect(properties.cents).toEqual({ type: 'number', description: 'cents' });
    expect(properties.json).toEqual({ type: 'string', description: 'JSON text' });
    expect(properties.maybe).toEqual({ anyOf: [{ type: 'number', description: 'days' }, { type: 'null' }] });
  });
});

describe('optional fields', () => {
  const Album = record({ id: f.id(), deletedAt: f.optional(f.timestamp()) });

  it('are present only when the platform sends them, converted', () => {
    expect(Album.from({ id: '1', deletedAt: '1700000000000' })).toEqual({
      id: '1',
      deletedAt: 1_700_000_000_000,
    });
    expect(Album.from({ id: '1', deletedAt: 0 })).toEqual({ id: '1', deletedAt: 0 });
    for (const absent of [{ id: '1' }, { id: '1', deletedAt: null }, { id: '1', deletedAt: undefined }]) {
      const album = Album.from(absent);
      expect(album).toEqual({ id: '1' });
      expect('deletedAt' in album).toBe(false);
    }
  });

  it('follow their own rule of presence when given one', () => {
    const Flagged = record({ main: f.optional(f.boolean(), (value) => value === true) });
    expect(Flagged.from({ main: true })).toEqual({ main: true });
    expect('main' in Flagged.from({ main: false })).toBe(false);
  });

  it('are optional in the schema, the rest required', () => {
    expect(Album.schema.required).toEqual(['id']);
    expect(Value.Check(Album.schema, { id: '1' })).toBe(true);
    expect(Value.Check(Album.schema, { deletedAt: 1 })).toBe(false);
  });
});

describe('records', () => {
  const Location = record({ locationId: f.id(), location: f.string('signed CDN URL') });
  const Media = record({
    id: f.id(),
    mediaId: f.from((raw) => raw.mediaId ?? (raw.media as { id?: unknown } | undefined)?.id, f.id()),
    size: f.from('bytes', f.number()),
    locations: f.array(Location),
    owner: f.record(
      record({ accountId: f.from((owner, media) => owner.accountId ?? media.accountId, f.id()) }),
    ),
  });

  it('read every field whatever the platform sends instead of an object', () => {
    for (const value of [undefined, null, 'x', 5, [], {}]) {
      expect(Media.from(value)).toEqual({
        id: '',
        mediaId: '',
        size: 0,
        locations: [],
        owner: { accountId: '' },
      });
    }
  });

  it('nest records and lists of records, each read like the top', () => {
    expect(
      Media.from({
        id: 7,
        mediaId: '8',
        bytes: '1024',
        size: 1,
        locations: [{ locationId: 1, location: 'https://cdn/x' }, null],
        owner: { accountId: '9' },
      }),
    ).toEqual({
      id: '7',
      mediaId: '8',
      size: 1024,
      locations: [
        { locationId: '1', location: 'https://cdn/x' },
        { locationId: '', location: '' },
      ],
      owner: { accountId: '9' },
    });
  });

  it('read a field from another upstream name, or from what a function picks, parent included', () => {
    const media = Media.from({ media: { id: '5' }, accountId: '3', owner: {} });
    expect(media.mediaId).toBe('5');
    expect(media.owner.accountId).toBe('3');
    expect(Media.from({ size: 9 }).size).toBe(0);
  });

  it('declare one schema for the mapping: same fields, order and nesting', () => {
    expect(Object.keys(Media.schema.properties)).toEqual(['id', 'mediaId', 'size', 'locations', 'owner']);
    expect(Media.schema.properties.locations).toEqual({ type: 'array', items: Location.schema });
    expect(Media.schema.properties.owner.properties.accountId).toEqual({ type: 'string' });
    expect(Value.Check(Media.schema, Media.from({ id: 1, owner: 'x', locations: 'y' }))).toBe(true);
  });

  it('give a nested record a description of its own without changing the record', () => {
    const Holder = record({ where: f.record(Location, 'the file'), list: f.array(Location, 'the files') });
    expect(Holder.schema.properties.where).toMatchObject({ description: 'the file' });
    expect(Holder.schema.properties.list).toMatchObject({ description: 'the files' });
    expect(Location.schema).not.toHaveProperty('description');
  });

  it('extend: the same fields first, then the new ones; a field of the same name replaced in place', () => {
    const Created = record({ id: f.id(), label: f.string(), total: f.number() });
    const Full = Created.extend({ clicks: f.number(), total: f.centsFromMills() });
    expect(Object.keys(Full.schema.properties)).toEqual(['id', 'label', 'total', 'clicks']);
    expect(Full.from({ id: 1, label: 'l', total: 1234, clicks: '3' })).toEqual({
      id: '1',
      label: 'l',
      total: 123,
      clicks: 3,
    });
    // The record extended is unchanged.
    expect(Object.keys(Created.schema.properties)).toEqual(['id', 'label', 'total']);
    expect(Created.from({ total: 1234 }).total).toBe(1234);
  });

  it('type the mapped value as the schema', () => {
    const Typed = record({
      id: f.id(),
      at: f.optional(f.timestamp()),
      note: f.nullableString(),
      tags: f.array(f.string()),
      nested: f.record(Location),
      any: f.unknown(),
    });
    type Expected = {
      id: string;
      at?: number;
      note: string | null;
      tags: string[];
      nested: { locationId: string; location: string };
      any: unknown;
    };
    expectTypeOf(Typed.from({})).toEqualTypeOf<Expected>();
    expectTypeOf<Static<typeof Typed.schema>>().toEqualTypeOf<Expected>();
    expectTypeOf<RecordValue<typeof Typed>>().toEqualTypeOf<Expected>();
  });
});

describe('every contract record', () => {
  const records: Record<string, ContractRecord> = {
    AccountMedia,
    ConnectionSession,
    CreatedTrackingLink,
    DeletedVaultAlbum,
    EarningsTransaction,
    FollowingEntry,
    List,
    ListMember,
    ListMemberWithSortId,
    MediaOfferItem,
    PayoutMethod,
    PlatformProfile,
    Post,
    Reaction,
    RecipientGroup,
    ScheduledMassMessage,
    SubscriberStats,
    Subscription,
    TrackingLink,
    UnreadMessageInteraction,
    VaultAlbum,
    VaultMedia,
    Wall,
  } as never;
  /** Each field's value replaced by `value`, one level deep. */
  const every = (r: ContractRecord, value: unknown) =>
    Object.fromEntries(Object.keys(r.schema.properties).map((name) => [name, value]));

  it('answers its schema whatever the platform sends', () => {
    for (const [name, r] of Object.entries(records)) {
      for (const value of [
        undefined,
        null,
        'x',
        [],
        {},
        every(r, null),
        every(r, 'abc'),
        every(r, '12'),
        every(r, {}),
      ]) {
        expect([...Value.Errors(r.schema, r.from(value))], `${name} from ${JSON.stringify(value)}`).toEqual(
          [],
        );
      }
    }
  });
});
