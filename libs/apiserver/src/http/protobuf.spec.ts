import { describe, expect, it } from 'vitest';
import { ApiError } from '../status';
import { decodeProtobuf } from './protobuf';

// A minimal protobuf writer for building bodies the way client-go does.
const varint = (value: number | bigint): number[] => {
  let rest = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  while (rest >= 0x80n) {
    out.push(Number((rest & 0x7fn) | 0x80n));
    rest >>= 7n;
  }
  out.push(Number(rest));
  return out;
};
const bytesField = (number: number, payload: Buffer | string): Buffer => {
  const data = typeof payload === 'string' ? Buffer.from(payload) : payload;
  return Buffer.from([...varint((number << 3) | 2), ...varint(data.length), ...data]);
};
const varintField = (number: number, value: number | bigint): Buffer =>
  Buffer.from([...varint(number << 3), ...varint(value)]);
const message = (...parts: Buffer[]): Buffer => Buffer.concat(parts);
const envelope = (apiVersion: string, kind: string, raw: Buffer): Buffer =>
  Buffer.concat([
    Buffer.from([0x6b, 0x38, 0x73, 0x00]),
    bytesField(1, message(bytesField(1, apiVersion), bytesField(2, kind))),
    bytesField(2, raw),
  ]);

function decodeError(body: Buffer): ApiError {
  try {
    decodeProtobuf(body);
  } catch (error) {
    return error as ApiError;
  }
  throw new Error('decoded');
}

describe('decodeProtobuf', () => {
  it('decodes nested built-in types with their JSON special forms', () => {
    const metadata = message(
      bytesField(1, 'web'),
      bytesField(2, ''), // Go writes unset non-pointer strings: dropped as JSON's omitempty does
      varintField(7, 0),
      bytesField(8, Buffer.alloc(0)), // zero creationTimestamp → null → absent
      bytesField(11, message(bytesField(1, 'app'), bytesField(2, 'web'))),
    );
    const port = message(varintField(3, 80), bytesField(4, 'TCP'), varintField(2, 0));
    const container = message(
      bytesField(1, 'nginx'),
      bytesField(2, 'nginx:1'),
      bytesField(6, port),
      bytesField(
        8,
        message(bytesField(1, message(bytesField(1, 'cpu'), bytesField(2, message(bytesField(1, '100m')))))),
      ),
    );
    const spec = message(
      varintField(1, 0), // replicas is a pointer in Go: an explicit 0 is kept
      bytesField(3, message(bytesField(1, Buffer.alloc(0)), bytesField(2, message(bytesField(2, container))))),
      bytesField(
        4,
        message(
          bytesField(1, 'RollingUpdate'),
          bytesField(2, message(bytesField(1, message(varintField(1, 1), bytesField(3, '25%'))))),
        ),
      ),
    );
    const body = envelope('apps/v1', 'Deployment', message(bytesField(1, metadata), bytesField(2, spec)));
    expect(decodeProtobuf(body)).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels: { app: 'web' } },
      spec: {
        replicas: 0,
        template: {
          metadata: {},
          spec: {
            containers: [
              {
                name: 'nginx',
                image: 'nginx:1',
                ports: [{ containerPort: 80, protocol: 'TCP' }],
                resources: { limits: { cpu: '100m' } },
              },
            ],
          },
        },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%' } },
      },
    });
  });

  it('keeps bytes as base64, timestamps as RFC 3339, and string lists as arrays', () => {
    const secret = envelope(
      'v1',
      'Secret',
      message(
        bytesField(1, bytesField(1, 's')),
        bytesField(2, message(bytesField(1, 'key'), bytesField(2, Buffer.from([0, 1, 2])))),
      ),
    );
    expect(decodeProtobuf(secret).data).toEqual({ key: 'AAEC' });

    const event = envelope(
      'events.k8s.io/v1',
      'Event',
      message(bytesField(2, message(varintField(1, 1_700_000_000), varintField(2, 123_456_000)))),
    );
    expect(decodeProtobuf(event).eventTime).toBe('2023-11-14T22:13:20.123456Z');

    const review = envelope(
      'authorization.k8s.io/v1',
      'SubjectAccessReview',
      message(
        bytesField(
          2,
          message(
            bytesField(3, 'alice'),
            bytesField(
              5,
              message(bytesField(1, 'scope'), bytesField(2, message(bytesField(1, 'a'), bytesField(1, 'b')))),
            ),
          ),
        ),
      ),
    );
    expect(decodeProtobuf(review).spec).toEqual({ user: 'alice', extra: { scope: ['a', 'b'] } });
  });

  it('answers 415 for types without a protobuf form (custom resources), as kube-apiserver does', () => {
    const error = decodeError(envelope('example.com/v1', 'Widget', Buffer.alloc(0)));
    expect(error.code).toBe(415);
    expect(error.message).toContain('accepted media types include: application/json');
  });

  it('rejects malformed bodies with 400 naming the problem', () => {
    expect(decodeError(Buffer.from('{"kind":"Pod"}')).code).toBe(400);
    const truncated = envelope('v1', 'ConfigMap', Buffer.from([0x0a, 0x10, 0x01]));
    expect(decodeError(truncated).message).toContain('field 1 runs past the end of its message');
    const unknownField = envelope('v1', 'ConfigMap', varintField(99, 1));
    expect(decodeError(unknownField).message).toContain('k8s.io.api.core.v1.ConfigMap has no field 99');
  });
});
