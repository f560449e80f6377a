// Field sets: kube's fieldsV1 form both ways, member-wise set operations, and kube's path text.
import { describe, expect, it } from 'vitest';
import { fieldElement as f, FieldSet, keyElement as k, pathString, valueElement as v } from './field-set';

describe('FieldSet', () => {
  it('writes fieldsV1 as kube does: {} for leaves, "." for members with children, elements in order', () => {
    const set = new FieldSet([
      [f('spec'), f('replicas')],
      [f('metadata'), f('labels')],
      [f('metadata'), f('labels'), f('app')],
      [f('spec'), f('containers'), k({ name: 'web' })],
      [f('spec'), f('containers'), k({ name: 'web' }), f('image')],
      [f('metadata'), f('finalizers'), v('a')],
    ]);
    const fields = set.toFieldsV1();
    expect(fields).toEqual({
      'f:metadata': { 'f:finalizers': { 'v:"a"': {} }, 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {} } }, 'f:replicas': {} },
    });
    expect(Object.keys(fields['f:metadata'] as object)).toEqual(['f:finalizers', 'f:labels']);
    expect(Object.keys((fields['f:metadata'] as Record<string, object>)['f:labels']!)).toEqual(['.', 'f:app']);
    expect(FieldSet.fromFieldsV1(fields).equals(set)).toBe(true);
  });

  it('reads kube-written fieldsV1 and refuses what is not of its forms', () => {
    const read = FieldSet.fromFieldsV1({ 'f:data': { '.': {}, 'f:a': {} } });
    expect(read.paths()).toEqual([[f('data')], [f('data'), f('a')]]);
    expect(FieldSet.fromFieldsV1(undefined).isEmpty()).toBe(true);
    expect(() => FieldSet.fromFieldsV1({ spec: {} })).toThrow('unknown path element "spec"');
    expect(() => FieldSet.fromFieldsV1({ 'f:spec': 1 })).toThrow('expected an object');
  });

  it('keys sort their fields, as kube serializes them', () => {
    expect(k({ protocol: 'TCP', containerPort: 80 })).toBe('k:{"containerPort":80,"protocol":"TCP"}');
  });

  it('operates member by member; touches looks below a path', () => {
    const a = new FieldSet([[f('spec')], [f('spec'), f('a')], [f('spec'), f('b')]]);
    const b = new FieldSet([[f('spec'), f('b')], [f('status')]]);
    expect(a.intersection(b).paths()).toEqual([[f('spec'), f('b')]]);
    expect(a.difference(b).paths()).toEqual([[f('spec')], [f('spec'), f('a')]]);
    expect(a.union(b).size).toBe(4);
    expect(a.difference(new FieldSet()).equals(a)).toBe(true);
    expect(b.touches([f('spec')])).toBe(true);
    expect(b.touches([f('metadata')])).toBe(false);
  });

  it("prints paths as kube's conflicts name them", () => {
    expect(pathString([f('spec'), f('replicas')])).toBe('.spec.replicas');
    expect(pathString([f('spec'), f('containers'), k({ name: 'web' }), f('image')])).toBe(
      '.spec.containers[name="web"].image',
    );
    expect(pathString([f('spec'), f('ports'), k({ port: 80, protocol: 'TCP' })])).toBe(
      '.spec.ports[port=80,protocol="TCP"]',
    );
    expect(pathString([f('metadata'), f('finalizers'), v('x')])).toBe('.metadata.finalizers[="x"]');
  });
});
