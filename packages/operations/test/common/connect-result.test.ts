import { describe, expect, it } from 'vitest';
import { loginLane } from '../../src/common/connect-result';

describe('loginLane', () => {
  const lane = (tenant: string, username: string) => loginLane({ body: { username } }, tenant);

  it('is one lane per tenant and username, whatever its case and surrounding spaces', () => {
    expect(lane('t1', ' Creator_Demo ')).toBe(lane('t1', 'creator_demo'));
    expect(lane('t1', 'creator_demo')).not.toBe(lane('t1', 'creator_2fa'));
    // Usernames are public: another tenant's attempts never share (and fill) this tenant's lane.
    expect(lane('t1', 'creator_demo')).not.toBe(lane('t2', 'creator_demo'));
  });

  it('does not carry the username', () => {
    expect(lane('t1', 'creator_demo')).toMatch(/^login:[0-9a-f]{64}$/);
  });
});
