import type { SecureContextOptions } from 'node:tls';

/**
 * How every HTTPS endpoint Edict serves negotiates (the webhook and metrics servers, and the
 * embedded API server of tests and `npm start`), one definition for all: TLS 1.2 or newer, forward-secret ECDHE key exchange and
 * AEAD ciphers only (the TLS 1.3 suites are all AEAD). The API server (Go's crypto/tls) offers all
 * of these; what is left out is what scanners flag: CBC modes, RSA key exchange, TLS 1.0/1.1.
 */
export const SERVING_TLS_OPTIONS: Readonly<SecureContextOptions & { honorCipherOrder: boolean }> = Object.freeze({
  minVersion: 'TLSv1.2',
  ciphers: [
    'TLS_AES_128_GCM_SHA256',
    'TLS_AES_256_GCM_SHA384',
    'TLS_CHACHA20_POLY1305_SHA256',
    'ECDHE-ECDSA-AES128-GCM-SHA256',
    'ECDHE-RSA-AES128-GCM-SHA256',
    'ECDHE-ECDSA-AES256-GCM-SHA384',
    'ECDHE-RSA-AES256-GCM-SHA384',
    'ECDHE-ECDSA-CHACHA20-POLY1305',
    'ECDHE-RSA-CHACHA20-POLY1305',
  ].join(':'),
  honorCipherOrder: true,
});
