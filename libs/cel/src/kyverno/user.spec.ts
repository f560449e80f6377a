import { describe, expect, it } from 'vitest';
import { evaluateKyverno } from '@edict/cel/testing';

describe('user library', () => {
  it("splits a service account's username into Namespace and Name", async () => {
    const request = { userInfo: { username: 'system:serviceaccount:team-a:builder' } };
    await expect(
      evaluateKyverno('parseServiceAccount(request.userInfo.username).Namespace', {}, {}, { request }),
    ).resolves.toBe('team-a');
    await expect(
      evaluateKyverno('user.parseServiceAccount(request.userInfo.username).Name', {}, {}, { request }),
    ).resolves.toBe('builder');
  });

  it('keeps later colons in the name, and answers empty fields for other users', async () => {
    await expect(evaluateKyverno('parseServiceAccount("system:serviceaccount:ns:a:b").Name')).resolves.toBe('a:b');
    await expect(
      evaluateKyverno('parseServiceAccount("alice").Name == "" && parseServiceAccount("alice").Namespace == ""'),
    ).resolves.toBe(true);
    await expect(evaluateKyverno('parseServiceAccount("system:serviceaccount:nocolon").Namespace')).resolves.toBe('');
  });
});
