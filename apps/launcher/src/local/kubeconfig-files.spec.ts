import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../testing/launcher-fixtures';
import { KubeconfigFiles } from './kubeconfig-files';

describe('KubeconfigFiles', () => {
  it('writes the kubeconfig (owner only) and the CA beside it, and removes both on remove()', () => {
    const files = new KubeconfigFiles(join(tempDir('kubeconfig'), '.edict', 'kubeconfig'));
    files.write('server: a', 'CA');
    expect(readFileSync(files.kubeconfigPath, 'utf8')).toBe('server: a');
    expect(statSync(files.kubeconfigPath).mode & 0o777).toBe(0o600);
    expect(readFileSync(files.caPath, 'utf8')).toBe('CA');
    files.remove();
    expect(existsSync(files.kubeconfigPath)).toBe(false);
    expect(existsSync(files.caPath)).toBe(false);
    files.remove(); // twice (stop, then exit) is harmless
  });

  it('leaves a file another process has rewritten since', () => {
    const files = new KubeconfigFiles(join(tempDir('kubeconfig'), 'kubeconfig'));
    files.write('server: a', 'CA');
    writeFileSync(files.kubeconfigPath, 'server: b');
    files.remove();
    expect(readFileSync(files.kubeconfigPath, 'utf8')).toBe('server: b');
    expect(existsSync(files.caPath)).toBe(false);
  });

  it('removes what a crashed run left, and nothing when there is nothing', () => {
    const dir = tempDir('kubeconfig');
    const files = new KubeconfigFiles(join(dir, 'kubeconfig'));
    expect(files.removeStale()).toEqual([]);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'kubeconfig'), 'server: old');
    writeFileSync(join(dir, 'ca.crt'), 'old CA');
    expect(files.removeStale()).toEqual([join(dir, 'kubeconfig'), join(dir, 'ca.crt')]);
    expect(existsSync(join(dir, 'kubeconfig'))).toBe(false);
    files.remove(); // it wrote nothing: removes nothing
  });
});
