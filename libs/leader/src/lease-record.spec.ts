import { describe, expect, it } from 'vitest';
import { defaultIdentity } from './identity';
import { leaseSpecToRecord, recordToLeaseSpec } from './lease-record';

describe('lease record', () => {
  it('maps to a LeaseSpec with MicroTime strings and back', () => {
    const record = {
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      acquireTime: 1_000,
      renewTime: 2_000,
      leaseTransitions: 3,
    };
    const spec = recordToLeaseSpec(record);
    expect(spec).toEqual({
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      leaseTransitions: 3,
      acquireTime: '1970-01-01T00:00:01.000000Z',
      renewTime: '1970-01-01T00:00:02.000000Z',
    });
    expect(JSON.parse(JSON.stringify(spec)).renewTime).toBe('1970-01-01T00:00:02.000000Z');
    expect(leaseSpecToRecord(spec)).toEqual(record);
  });

  it('reads a missing spec as a free lease', () => {
    expect(leaseSpecToRecord(undefined)).toEqual({
      holderIdentity: '',
      leaseDurationSeconds: 0,
      acquireTime: undefined,
      renewTime: undefined,
      leaseTransitions: 0,
    });
  });
});

describe('defaultIdentity', () => {
  it('uses the pod name and uid, else the hostname and a random suffix', () => {
    expect(defaultIdentity({ POD_NAME: 'edict-0', POD_UID: 'u-1' })).toBe('edict-0_u-1');
    expect(
      defaultIdentity(
        {},
        () => 'host',
        () => 'r',
      ),
    ).toBe('host_r');
    expect(
      defaultIdentity(
        { POD_NAME: 'edict-0' },
        () => 'host',
        () => 'r',
      ),
    ).toBe('edict-0_r');
    expect(defaultIdentity({}, () => 'h')).not.toBe(defaultIdentity({}, () => 'h'));
  });
});
