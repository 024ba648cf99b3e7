import { jobCancelled, NotGranted } from './failure';
import type { Claim } from './lanes';

/**
 * Gives a request's slot back: `final`, the request will not run again; `idle`, its claim let it
 * through and it sent nothing to the platform.
 */
export type GiveBack = (final: boolean, idle: boolean) => Promise<void>;

/**
 * The lane's answer for a request, awaited only before its first platform call: what the request does
 * before it (reading its account and session) runs alongside the claim instead of after it. No
 * request leaves for the platform without `pass`.
 */
export class Gate {
  private passed: boolean;
  /** The lane said "not now": the request holds no slot of its own to give back. */
  private denied = false;
  private givenBack = false;
  /** Platform calls let through (each `pass`): 0, the request has sent nothing. */
  calls = 0;
  /** The claim itself failed (Redis): the attempt fails as a whole, and BullMQ tries it again. */
  failed = false;

  constructor(
    /** The lane's answer; none: a request without a lane, always let through. */
    private readonly claim: Promise<Claim | undefined> | undefined,
    private readonly release: GiveBack = async () => {},
  ) {
    this.passed = claim === undefined;
    // Awaited in `pass` or `giveBack`.
    claim?.catch(() => undefined);
  }

  /** Before each platform call: throws `NotGranted` (or `jobCancelled`) when the lane says no. */
  async pass(): Promise<void> {
    if (!this.passed) await this.admitted();
    this.calls += 1;
  }

  /** Its caller cancelled the request (the claim said so), whatever else it came to. */
  async cancelled(): Promise<boolean> {
    return (await this.claim?.catch(() => undefined))?.kind === 'cancelled';
  }

  /**
   * Gives the request's slot back, once, after its claim has landed whatever it said (a release must
   * come after the claim); nothing when there was no claim or the lane refused it.
   */
  async giveBack(final: boolean): Promise<void> {
    if (this.claim === undefined || this.denied || this.givenBack) return;
    this.givenBack = true;
    const answer = await this.claim.catch(() => undefined);
    await this.release(final, answer?.kind === 'run' && this.calls === 0);
  }

  private async admitted(): Promise<void> {
    let answer: Claim | undefined;
    try {
      answer = await this.claim;
    } catch (error) {
      this.failed = true;
      throw error;
    }
    if (answer?.kind !== 'run') {
      this.denied = true;
      if (answer?.kind === 'cancelled') throw jobCancelled();
      throw new NotGranted(answer?.kind === 'delay' ? answer.delayMs : undefined);
    }
    this.passed = true;
  }
}
