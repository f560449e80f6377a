import { describe, expect, it } from 'vitest';
import { isUnknownUser, subjectsMatch, userInfoFailures } from './user-info';

const alice = { username: 'alice', groups: ['system:authenticated', 'devs'] };
const sa = { username: 'system:serviceaccount:ci:deployer', groups: ['system:serviceaccounts'] };

describe('subjectsMatch', () => {
  it.each([
    [[{ kind: 'User', name: 'alice' }], alice, true],
    [[{ kind: 'User', name: 'bob' }], alice, false],
    [[{ kind: 'User', name: 'al*' }], alice, true],
    [[{ kind: 'Group', name: 'devs' }], alice, true],
    [[{ kind: 'Group', name: 'ops' }], alice, false],
    [[{ kind: 'Group', name: 'system:*' }], alice, true],
    [[{ kind: 'ServiceAccount', name: 'deployer', namespace: 'ci' }], sa, true],
    [[{ kind: 'ServiceAccount', name: 'deployer', namespace: 'prod' }], sa, false],
    [[{ kind: 'ServiceAccount', name: '*', namespace: 'ci' }], sa, true],
    [[{ kind: 'ServiceAccount', name: 'deployer' }], sa, false],
    [[{ kind: 'User', name: 'system:serviceaccount:ci:deployer' }], sa, true],
    [[{ kind: 'user', name: 'alice' }], alice, false], // subject kinds are exact
    [
      [
        { kind: 'User', name: 'bob' },
        { kind: 'Group', name: 'devs' },
      ],
      alice,
      true,
    ],
  ])('%j for %j is %s', (subjects, info, expected) => {
    expect(subjectsMatch(subjects, info)).toBe(expected);
  });

  it('matches nothing without user info', () => {
    expect(subjectsMatch([{ kind: 'User', name: 'alice' }], undefined)).toBe(false);
  });
});

describe('userInfoFailures', () => {
  const user = { roles: ['default:viewer'], clusterRoles: ['admin'], userInfo: alice };

  it('passes when every set attribute holds', () => {
    expect(
      userInfoFailures(
        { roles: ['default:viewer'], clusterRoles: ['admin', 'edit'], subjects: [{ kind: 'User', name: 'alice' }] },
        user,
      ),
    ).toEqual([]);
  });

  it('reports each failing attribute in Kyverno words', () => {
    expect(
      userInfoFailures(
        { roles: ['default:editor'], clusterRoles: ['edit'], subjects: [{ kind: 'User', name: 'bob' }] },
        user,
      ),
    ).toEqual([
      'user info does not match roles for the given conditionBlock',
      'user info does not match clustersRoles for the given conditionBlock',
      'user info does not match subject for the given conditionBlock',
    ]);
  });

  it('compares roles exactly, without wildcards', () => {
    expect(userInfoFailures({ clusterRoles: ['adm*'] }, user)).toHaveLength(1);
  });
});

describe('isUnknownUser', () => {
  it.each([
    [undefined, true],
    [{}, true],
    [{ userInfo: {} }, true],
    [{ userInfo: { username: '' } }, true],
    [{ userInfo: { username: 'alice' } }, false],
    [{ roles: [] }, false],
    [{ userInfo: { groups: [] } }, false],
  ])('%j is %s', (user, expected) => {
    expect(isUnknownUser(user)).toBe(expected);
  });
});
