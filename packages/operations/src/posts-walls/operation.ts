import { type Static, Type } from 'typebox';
import { coerce } from '../common/coerce';
import { AccountParams } from '../common/schemas';
import { defineOperation } from '../define';

const { obj, arr, str, num, bool } = coerce;

/** The contract's Wall record. */
export const Wall = Type.Object({
  id: Type.String(),
  accountId: Type.String(),
  pos: Type.Number({ description: 'display order' }),
  name: Type.String(),
  description: Type.String(),
  private: Type.Number({ description: 'privacy flag' }),
  metadata: Type.String({ description: 'JSON text' }),
  mainWall: Type.Optional(Type.Boolean({ description: 'present on the main wall' })),
  defaultWall: Type.Optional(Type.Boolean({ description: 'present on the default wall' })),
});
export type Wall = Static<typeof Wall>;

/**
 * The contract shapes this endpoint unlike the others: `data.data` holds accountId and walls itself,
 * with no `response` wrapper and no `success` field. `status_code` stays, as on every success.
 */
export const WallsData = Type.Object({
  status_code: Type.Integer(),
  data: Type.Object({ accountId: Type.String(), walls: Type.Array(Wall) }),
});

export function toWall(value: unknown): Wall {
  const raw = obj(value);
  return {
    id: str(raw.id),
    accountId: str(raw.accountId),
    pos: num(raw.pos),
    name: str(raw.name),
    description: str(raw.description),
    private: num(raw.private),
    metadata: str(raw.metadata),
    // The contract has them present on the main and the default wall: a platform's `false` on the
    // others is left out, so that a client testing for the field finds only the one wall.
    ...(bool(raw.mainWall) ? { mainWall: true } : {}),
    ...(bool(raw.defaultWall) ? { defaultWall: true } : {}),
  };
}

export const postsWalls = defineOperation({
  name: 'posts-walls',
  method: 'GET',
  path: '/:accountId/posts/walls',
  summary: 'The creator’s walls',
  tags: ['posts'],
  session: 'path',
  write: false,
  successStatus: 200,
  schemas: {
    params: AccountParams,
    data: WallsData,
  },
  run: async (_input, { call, account }) => {
    const answer = obj(await call('accountWalls'));
    return {
      status_code: 200,
      data: {
        accountId: str(answer.accountId ?? account?.platformAccountId),
        walls: arr(answer.walls).map(toWall),
      },
    };
  },
});
