import { encodeId, Kind } from '../ids';
import { EXTRA_CREATOR_PREFIX, extraCreatorUsername, SANDBOX_ACCOUNTS, SANDBOX_PASSWORD } from '../options';
import { Rand } from '../rand';

/** Who a sandbox creator is: enough to log in and to name its world, without building the world. */
export interface CreatorIdentity {
  /** 0 creator_demo, 1 creator_2fa, 2.. sim_creator_00001.. */
  index: number;
  /** Id namespace of everything seeded in this creator's world (index + 1). */
  namespace: number;
  username: string;
  email: string;
  maskedEmail: string;
  password: string;
  twofaCode: string | null;
  accountId: string;
  displayName: string;
  createdAt: number;
}

const DAY_MS = 86_400_000;
const EXTRA_PATTERN = new RegExp(`^${EXTRA_CREATOR_PREFIX}(\\d{5})$`);

export function maskEmail(email: string): string {
  const at = email.indexOf('@');
  return `${email.charAt(0)}*****${email.slice(at)}`;
}

export class CreatorDirectory {
  readonly count: number;
  private readonly identities = new Map<number, CreatorIdentity>();

  constructor(
    private readonly seed: number,
    private readonly anchorMs: number,
    readonly extraCreators: number,
  ) {
    this.count = SANDBOX_ACCOUNTS.length + extraCreators;
  }

  identity(index: number): CreatorIdentity | null {
    if (!Number.isInteger(index) || index < 0 || index >= this.count) return null;
    const cached = this.identities.get(index);
    if (cached) return cached;
    const namespace = index + 1;
    const rand = new Rand(this.seed, namespace);
    const sandbox = SANDBOX_ACCOUNTS[index];
    const username = sandbox ? sandbox.username : extraCreatorUsername(index - SANDBOX_ACCOUNTS.length + 1);
    const displayName = sandbox
      ? index === 0
        ? 'Demo Creator'
        : 'Two-Factor Creator'
      : `Sim Creator ${username.slice(EXTRA_CREATOR_PREFIX.length)}`;
    const createdAt =
      this.anchorMs -
      rand.int(400, 1100, Kind.account, 0) * DAY_MS -
      rand.int(0, DAY_MS - 1, Kind.account, 1);
    const email = `${username}@example.com`;
    const identity: CreatorIdentity = {
      index,
      namespace,
      username,
      email,
      maskedEmail: maskEmail(email),
      password: sandbox ? sandbox.password : SANDBOX_PASSWORD,
      twofaCode: sandbox ? sandbox.twofaCode : null,
      accountId: encodeId(createdAt, namespace, Kind.account),
      displayName,
      createdAt,
    };
    this.identities.set(index, identity);
    return identity;
  }

  /** Index of the creator with this username or e-mail (case-insensitive), or -1. */
  indexOf(login: string): number {
    let name = login.trim().toLowerCase();
    if (name.endsWith('@example.com')) name = name.slice(0, -'@example.com'.length);
    const sandboxIndex = SANDBOX_ACCOUNTS.findIndex((account) => account.username === name);
    if (sandboxIndex >= 0) return sandboxIndex;
    const match = EXTRA_PATTERN.exec(name);
    if (!match?.[1]) return -1;
    const n = Number(match[1]);
    return n >= 1 && n <= this.extraCreators ? SANDBOX_ACCOUNTS.length + n - 1 : -1;
  }
}
