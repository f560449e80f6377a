import { describe, expect, it } from 'vitest';
import { InMemoryApiServer } from '../api-server';

describe('Secret stringData', () => {
  it('is written into data (base64, winning over the same key) and never stored, on create and update', () => {
    const server = new InMemoryApiServer();
    server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
    server.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds', namespace: 'team' },
      data: { user: 'b2xk', keep: 'eA==' },
      stringData: { user: 'admin', pass: 'héllo' },
    });
    const created = server.get('v1', 'Secret', 'creds', 'team')!;
    expect(created.stringData).toBeUndefined();
    expect(created.data).toEqual({ user: 'YWRtaW4=', keep: 'eA==', pass: Buffer.from('héllo').toString('base64') });
    server.update({ ...created, stringData: { keep: 'y' } });
    expect(server.get('v1', 'Secret', 'creds', 'team')!.data).toMatchObject({ keep: 'eQ==', user: 'YWRtaW4=' });
  });
});
