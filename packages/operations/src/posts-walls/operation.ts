import { Type } from 'typebox';
import { coerce } from '../common/coerce';
import { f, type RecordValue, record } from '../common/record';
import { AccountParams, accountExample } from '../common/schemas';
import { accountRead, defineOperation } from '../define';

const { obj, arr, str, bool } = coerce;

/** The contract's Wall record. */
export const Wall = record({
  id: f.id(),
  accountId: f.id(),
  pos: f.number('display order'),
  name: f.string(),
  description: f.string(),
  private: f.number('privacy flag'),
  metadata: f.string('JSON text'),
  // The contract has them present on the main and the default wall: a platform's `false` on the
  // others is left out, so that a client testing for the field finds only the one wall.
  mainWall: f.optional(f.boolean('present on the main wall'), bool),
  defaultWall: f.optional(f.boolean('present on the default wall'), bool),
});
export type Wall = RecordValue<typeof Wall>;

/**
 * The contract shapes this endpoint unlike the others: `data.data` holds accountId and walls itself,
 * with no `response` wrapper and no `success` field. `status_code` stays, as on every success.
 */
export const WallsData = Type.Object({
  status_code: Type.Integer(),
  data: Type.Object({ accountId: Type.String(), walls: Type.Array(Wall.schema) }),
});

export const postsWalls = defineOperation({
  name: 'posts-walls',
  method: 'GET',
  path: '/:accountId/posts/walls',
  summary: 'The creator’s walls',
  tags: ['posts'],
  ...accountRead,
  schemas: {
    params: AccountParams,
    data: WallsData,
  },
  example: { params: accountExample },
  run: async (_input, { call, account }) => {
    const answer = obj(await call('accountWalls'));
    return {
      status_code: 200,
      data: {
        accountId: str(answer.accountId ?? account?.platformAccountId),
        walls: arr(answer.walls).map(Wall.from),
      },
    };
  },
});
