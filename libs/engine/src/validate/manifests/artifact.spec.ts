import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeMessage, yamlsInArtifact } from './artifact';
import { decodeStdBase64 } from './base64';
import { tarArchive } from '@edict/engine/testing';
import { readTar } from './tar';

const configMap = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n`;

describe('readTar', () => {
  it('reads regular files, directories and the ustar prefix', () => {
    const entries = readTar(
      tarArchive([
        { name: 'dir/', content: '', type: '5' },
        { name: 'a.yaml', content: 'x: 1', prefix: 'tmp/build' },
      ]),
    );
    expect(entries.map((e) => [e.path, e.type, e.data.toString()])).toEqual([
      ['dir/', '5', ''],
      ['tmp/build/a.yaml', '0', 'x: 1'],
    ]);
  });

  it('takes long names from GNU and PAX records', () => {
    const long = `${'d/'.repeat(60)}file.yaml`;
    const pax = `${String(long.length + 11).padStart(3, '0')} path=${long}\n`;
    const entries = readTar(
      tarArchive([
        { name: '././@LongLink', content: `${long}\0`, type: 'L' },
        { name: 'short', content: 'one' },
        { name: 'PaxHeader', content: pax, type: 'x' },
        { name: 'short2', content: 'two' },
      ]),
    );
    expect(entries.map((e) => e.path)).toEqual([long, long]);
  });

  it('rejects a corrupted header', () => {
    const archive = tarArchive([{ name: 'a.yaml', content: 'x' }]);
    archive[0] = 0x41; // changes the name, not the recorded checksum
    expect(() => readTar(archive)).toThrow('archive/tar: invalid tar header');
  });
});

describe('yamlsInArtifact', () => {
  it('reads plain YAML documents first', () => {
    expect(yamlsInArtifact(Buffer.from(`${configMap('a')}---\n${configMap('b')}`))).toHaveLength(2);
  });

  it('stops at the first document that does not parse, like the stream decoder', () => {
    const docs = yamlsInArtifact(Buffer.from(`${configMap('a')}---\nkey: [unclosed\n---\n${configMap('c')}`));
    expect(docs).toHaveLength(1);
  });

  it('reads the .yaml/.yml files of a tar.gz that describe objects, in directory-walk order', () => {
    const archive = gzipSync(
      tarArchive([
        { name: 'z.yml', content: configMap('z') },
        { name: 'a.yaml', content: configMap('a') },
        { name: 'a/b.yaml', content: configMap('b') },
        { name: 'notes.txt', content: configMap('txt') },
        { name: 'values.yaml', content: 'replicas: 3\n' },
        { name: '../escape.yaml', content: configMap('escape') },
      ]),
    );
    const names = yamlsInArtifact(archive).map((d) => (d as { metadata: { name: string } }).metadata.name);
    expect(names).toEqual(['b', 'a', 'z']);
  });

  it('explains what is wrong with an artifact that is neither', () => {
    expect(() => yamlsInArtifact(Buffer.from([0x1f, 0x8b, 0, 1, 2]))).toThrow(
      'gzip.NewReader() failed while decompressing tar gz: gzip: invalid header',
    );
    const symlink = gzipSync(tarArchive([{ name: 'link.yaml', content: '', type: '2' }]));
    expect(() => yamlsInArtifact(symlink)).toThrow('faced uknown type 2 in link.yaml while decompressing tar gz');
  });
});

describe('decodeMessage', () => {
  it('gunzips the annotation into the signed bytes and caches the result', () => {
    const artifact = Buffer.from(configMap('a'));
    const annotation = gzipSync(artifact).toString('base64');
    const message = decodeMessage(annotation);
    expect(message.payload).toEqual(artifact);
    expect(message.documents()).toHaveLength(1);
    expect(decodeMessage(annotation)).toBe(message);
  });

  it('keeps data that is not gzip as it is', () => {
    expect(decodeMessage(Buffer.from('plain').toString('base64')).payload).toEqual(Buffer.from('plain'));
  });
});

describe('decodeStdBase64', () => {
  it('is strict about alphabet and padding, and ignores newlines', () => {
    expect(decodeStdBase64('aGk=').toString()).toBe('hi');
    expect(decodeStdBase64('aG\nk=').toString()).toBe('hi');
    expect(() => decodeStdBase64('aGk')).toThrow('illegal base64 data at input byte 3');
    expect(() => decodeStdBase64('aG-k')).toThrow('illegal base64 data at input byte 2');
    expect(() => decodeStdBase64('a===')).toThrow('illegal base64 data at input byte');
  });
});
