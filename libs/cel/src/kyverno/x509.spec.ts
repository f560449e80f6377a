import { describe, expect, it } from 'vitest';
import { evaluateKyverno } from '@edict/cel/testing';

// An RSA-1024 certificate and a CSR made with openssl for this spec (serial 4660, CN cel.edict.test).
const CERT = `-----BEGIN CERTIFICATE-----
MIICRzCCAbCgAwIBAgICEjQwDQYJKoZIhvcNAQELBQAwKTEXMBUGA1UEAwwOY2Vs
LmVkaWN0LnRlc3QxDjAMBgNVBAoMBUVkaWN0MB4XDTI2MTEyOTA2NTUwNFoXDTM2
MTEyNjA2NTUwNFowKTEXMBUGA1UEAwwOY2VsLmVkaWN0LnRlc3QxDjAMBgNVBAoM
BUVkaWN0MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQCw8E0ErTv/ReQ8IF4T
+18uObC5mMrzLIZV4tKqujgPgJ3BtJhIICi+Tw8NlqkF7CG31IU5hE06mhSzmzvx
KWWEUg1MFIGmP8Mckbz+vFdR03Qohy1xxh7CAgTiCguJ4o6fbRT/Dh6hCRspzw9Z
BoCjEvHC0gG+1SfzV4pUwqTPewIDAQABo34wfDAdBgNVHQ4EFgQU98BsOCjxRq8w
iyaqVzdCV4sLMmcwHwYDVR0jBBgwFoAU98BsOCjxRq8wiyaqVzdCV4sLMmcwDwYD
VR0TAQH/BAUwAwEB/zApBgNVHREEIjAggg5jZWwuZWRpY3QudGVzdIIOYWx0LmVk
aWN0LnRlc3QwDQYJKoZIhvcNAQELBQADgYEAfxPGV/ciZqbamUwcXQZPZSgHs5OY
1A+CF2GpQv5Jw0c5Ulf+g+WR1au1gINPli/k70dmTED4X/FqAIxH1aVzNlflo7g5
JRjNACu8zGkpaX8n4AxIcWERCaB1Mr2IHl3pbff+uH1o2MipGfuTvqtoUEoH4JZl
QfYDehNzX2x8FFU=
-----END CERTIFICATE-----
`;
const CSR = `-----BEGIN CERTIFICATE REQUEST-----
MIIBWDCBwgIBADAZMRcwFQYDVQQDDA5jc3IuZWRpY3QudGVzdDCBnzANBgkqhkiG
9w0BAQEFAAOBjQAwgYkCgYEAsPBNBK07/0XkPCBeE/tfLjmwuZjK8yyGVeLSqro4
D4CdwbSYSCAovk8PDZapBewht9SFOYRNOpoUs5s78SllhFINTBSBpj/DHJG8/rxX
UdN0KIctccYewgIE4goLieKOn20U/w4eoQkbKc8PWQaAoxLxwtIBvtUn81eKVMKk
z3sCAwEAAaAAMA0GCSqGSIb3DQEBCwUAA4GBAGnsFbKgZddzvW+8CjUNrPg2IpYc
aFQPidN41C/nf0AnHddtHdhrG8I+li3eRydiOuXTwhZxkM+j5B1hqzYpZy5UWRFz
0QvMd8BT1dViemch5PZkuSTCIRN7pxGWoqIhMYRcL2/u7H2JHrKDPYQHbsYYkG5A
AcY1ms4wxcyixDpj
-----END CERTIFICATE REQUEST-----
`;
// An ECDSA P-256 certificate: Kyverno decodes RSA keys only.
const EC_CERT = `-----BEGIN CERTIFICATE-----
MIIBbjCCARWgAwIBAgIUKIfwAfHXstQkq2yDj00Jyx46j8IwCgYIKoZIzj0EAwIw
DTELMAkGA1UEAwwCZWMwHhcNMjYxMTI5MDY1NTIwWhcNMjYxMjI5MDY1NTIwWjAN
MQswCQYDVQQDDAJlYzBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABH8tyske3Ptc
wQKGo4bVYjka3f5DZc3qbbjB7voTWUhxaobg9I8xcajujPqqpsT/L7c8yuzwf2Cr
D8Jk/mCrmTSjUzBRMB0GA1UdDgQWBBR1VLZ+qpWK2yBWmEUpQpm6dtSqeTAfBgNV
HSMEGDAWgBR1VLZ+qpWK2yBWmEUpQpm6dtSqeTAPBgNVHRMBAf8EBTADAQH/MAoG
CCqGSM49BAMCA0cAMEQCICzvq8YBYfYL9omlYalyaoFoVEcdxNjQElW3Y7edUDw7
AiANSZJYveQ4elKnyIXGhZGKRYcQ2UlqX6hkN++D3wcWvg==
-----END CERTIFICATE-----
`;
const MODULUS =
  '124250563167413901118505125810944238931303879778579170543783709990541551611328133114692541506695934716782324682047892710842808982146670948180863527145764954283529988407409574641213015324019197246778815816394646020987013253141642984748903425959601962614677122870844596546059109137098096474943446224104736477051';

describe('x509 library', () => {
  const decode = (pem: string, path: string) =>
    evaluateKyverno(`x509.decode(object.pem)${path}`, {}, {}, { object: { pem } });

  it("decodes a certificate into Kyverno's certificate output", async () => {
    await expect(decode(CERT, '.SerialNumber')).resolves.toBe(4660);
    await expect(decode(CERT, '.Issuer.CommonName')).resolves.toBe('cel.edict.test');
    await expect(decode(CERT, '.DNSNames')).resolves.toEqual(['cel.edict.test', 'alt.edict.test']);
    await expect(decode(CERT, '.IsCA')).resolves.toBe(true);
    await expect(decode(CERT, '.NotAfter')).resolves.toBe('2036-11-26T06:55:04Z');
    await expect(decode(CERT, '.PublicKey')).resolves.toEqual({ N: MODULUS, E: 65537 });
    await expect(decode(CERT, '.PublicKeyAlgorithm')).resolves.toBe(1);
  });

  it('keeps only the fields of that output (no Subject, unlike the full Go struct)', async () => {
    await expect(decode(CERT, '.?Subject.hasValue()')).resolves.toBe(false);
    await expect(decode(CERT, '.?Raw.hasValue()')).resolves.toBe(true);
  });

  it('decodes a certificate request in full', async () => {
    await expect(decode(CSR, '.Subject.CommonName')).resolves.toBe('csr.edict.test');
    await expect(decode(CSR, '.PublicKey.N')).resolves.toBe(MODULUS);
  });

  it('refuses what is not an RSA certificate or request', async () => {
    await expect(decode('hello', '')).rejects.toThrow('failed to decode PEM block');
    await expect(decode(EC_CERT, '')).rejects.toThrow('certificate should use rsa algorithm');
    await expect(decode('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n', '')).rejects.toThrow(
      'PEM block neither contains a CERTIFICATE or CERTIFICATE REQUEST',
    );
  });
});
