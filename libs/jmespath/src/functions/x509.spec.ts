import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '@edict/foundation';
import { jp } from '@edict/jmespath/testing';

// Self-signed RSA-1024 test certificate and CSR generated with openssl for these tests.
const CERT = `-----BEGIN CERTIFICATE-----
MIICXjCCAcegAwIBAgICEjQwDQYJKoZIhvcNAQELBQAwOjELMAkGA1UEBhMCVVMx
EzARBgNVBAoMCkVkaWN0IFRlc3QxFjAUBgNVBAMMDWVkaWN0LmV4YW1wbGUwHhcN
MjYxMTIyMDMxOTU1WhcNMzYxMTE5MDMxOTU1WjA6MQswCQYDVQQGEwJVUzETMBEG
A1UECgwKRWRpY3QgVGVzdDEWMBQGA1UEAwwNZWRpY3QuZXhhbXBsZTCBnzANBgkq
hkiG9w0BAQEFAAOBjQAwgYkCgYEAwBI0kJMuhh5LSchj3wmM+lE3qggWxIoCgQHD
CUkaLbPzH6kGEx8LkYUjOj22oM2pZj4Gm3EJgMu7YXgJaMfz9UtQJtZPRyGCtY6O
xf5JigRKelLy4SJn+ipHQeAC/lagttElei74/YoL9gN3hygSQB+pfRrQK2WGBgNP
W6on2SsCAwEAAaNzMHEwHQYDVR0OBBYEFPffD6ZpAzgIkhrW5StopHfvOmTfMB8G
A1UdIwQYMBaAFPffD6ZpAzgIkhrW5StopHfvOmTfMA8GA1UdEwEB/wQFMAMBAf8w
HgYDVR0RBBcwFYINZWRpY3QuZXhhbXBsZYcECgAAATANBgkqhkiG9w0BAQsFAAOB
gQCyIT+JPee4Wd+qFRUzS/Rqhr3cnnM3ObHUUH1LdOwef8hrqGgclOb/PaybrB8J
knUN9cO2BJ68DbVx+s7TtHVREG5s49FBiiLA80g8pBAG2vYiqd72tl+CadhiFxQP
Cp++umastz5aH8Of4j6JPzkr3ujAIl/RXle9aF2KBQqHfA==
-----END CERTIFICATE-----
`;

const CSR = `-----BEGIN CERTIFICATE REQUEST-----
MIIBVTCBvwIBADAWMRQwEgYDVQQDDAtjc3IuZXhhbXBsZTCBnzANBgkqhkiG9w0B
AQEFAAOBjQAwgYkCgYEAwBI0kJMuhh5LSchj3wmM+lE3qggWxIoCgQHDCUkaLbPz
H6kGEx8LkYUjOj22oM2pZj4Gm3EJgMu7YXgJaMfz9UtQJtZPRyGCtY6Oxf5JigRK
elLy4SJn+ipHQeAC/lagttElei74/YoL9gN3hygSQB+pfRrQK2WGBgNPW6on2SsC
AwEAAaAAMA0GCSqGSIb3DQEBCwUAA4GBAJOKasdLjnmgmJ4UUYmbUMVfwuCs9xTf
suV1CDrH37dDH/6BsQhS4EvsP4yg+OFirgP4z+06/DIXFjjoMQfkhVIGaXhbOW8c
ovb+omn1VtTVBxqZS8qvH5nW/y62iQ+fx5U6pRwQXgcvCn+IbQ0EWkQ3A8awFHZt
6dmL1BwTtbRQ
-----END CERTIFICATE REQUEST-----
`;

const EC_CERT = `-----BEGIN CERTIFICATE-----
MIIBbjCCARWgAwIBAgIUQ2C6khe6Q6JxDaEnh6IyYyLfF6YwCgYIKoZIzj0EAwIw
DTELMAkGA1UEAwwCZWMwHhcNMjYxMTIyMDMxOTU1WhcNMjYxMTIzMDMxOTU1WjAN
MQswCQYDVQQDDAJlYzBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABLUEvAf7oOW2
a+9bOlro5A3N2WUMCwc9cFNunHf8utdD7eWA25IN8G1i8ftY25P/rvL7r4poF+oh
zb4yB/sEMyqjUzBRMB0GA1UdDgQWBBSNL4kYWGlo0poBqKovni+1UM0/lTAfBgNV
HSMEGDAWgBSNL4kYWGlo0poBqKovni+1UM0/lTAPBgNVHRMBAf8EBTADAQH/MAoG
CCqGSM49BAMCA0cAMEQCIB9A2yL7TVRaEcc1yqI1iE7tR1HGXIxUdPmKMeu/5IfN
AiAXt60YAo986V0KAAth2imitOc9xdXpsEfnB+guKzsgig==
-----END CERTIFICATE-----
`;

const MODULUS =
  '134876923467068589936532813126784617368419116776172418098771609247128508871827018307363880487339052766224409967628898046790019623658122086623829164777656675952066193921061602061920111264030683181899242857183848589273326775969648915964810939831416092590118360140608410351350313318060901591584979807270016112939';

describe('x509_decode', () => {
  it('decodes a certificate into Go’s x509.Certificate JSON with an {N, E} public key', () => {
    const cert = jp('x509_decode(@)', CERT) as JsonObject;
    const keyId = Buffer.from('F7DF0FA669033808921AD6E52B68A477EF3A64DF', 'hex').toString('base64');
    expect(cert).toMatchObject({
      PublicKey: { N: MODULUS, E: 65537 },
      PublicKeyAlgorithm: 1,
      SignatureAlgorithm: 4, // SHA256WithRSA
      Version: 3,
      SerialNumber: 4660,
      Subject: {
        CommonName: 'edict.example',
        Organization: ['Edict Test'],
        Country: ['US'],
        Locality: null,
        SerialNumber: '',
        Names: [
          { Type: [2, 5, 4, 6], Value: 'US' },
          { Type: [2, 5, 4, 10], Value: 'Edict Test' },
          { Type: [2, 5, 4, 3], Value: 'edict.example' },
        ],
        ExtraNames: null,
      },
      Issuer: { CommonName: 'edict.example' },
      NotBefore: '2026-11-22T03:19:55Z',
      NotAfter: '2036-11-19T03:19:55Z',
      IsCA: true,
      BasicConstraintsValid: true,
      MaxPathLen: -1,
      MaxPathLenZero: false,
      DNSNames: ['edict.example'],
      IPAddresses: ['10.0.0.1'],
      EmailAddresses: null,
      SubjectKeyId: keyId,
      AuthorityKeyId: keyId,
      ExtKeyUsage: null,
      Raw: CERT.replace(/-----[A-Z ]+-----|\n/g, ''),
    });
    const extensions = cert['Extensions'] as JsonValue[];
    expect(extensions).toHaveLength(4);
    expect(extensions[2]).toMatchObject({ Id: [2, 5, 29, 19], Critical: true });
  });

  it('is reachable through base64_decode and path selection, as policies use it', () => {
    const b64 = Buffer.from(CERT).toString('base64');
    expect(jp('x509_decode(base64_decode(@)).PublicKey.N', b64)).toBe(MODULUS);
  });

  it('decodes a certificate request', () => {
    expect(jp('x509_decode(@)', CSR)).toMatchObject({
      Subject: { CommonName: 'csr.example' },
      PublicKey: { N: MODULUS, E: 65537 },
      Version: 0,
      Extensions: null,
    });
  });

  it('rejects non-PEM input, other PEM blocks and non-RSA keys', () => {
    expect(() => jp("x509_decode('hello')")).toThrow('failed to decode PEM block');
    expect(() => jp('x509_decode(@)', '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n')).toThrow(
      'PEM block neither contains a CERTIFICATE or CERTIFICATE REQUEST',
    );
    expect(() => jp('x509_decode(@)', EC_CERT)).toThrow('certificate should use rsa algorithm');
    expect(() => jp('x509_decode(@)', '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n')).toThrow(
      /x509: malformed/,
    );
  });
});
