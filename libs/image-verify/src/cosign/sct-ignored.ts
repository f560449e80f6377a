import { EXTENSION_OID_SCT, X509Certificate } from '@sigstore/core';

/**
 * A certificate whose SCTs are not checked (ctlog.ignoreSCT; Sigstore bundles, where Kyverno never
 * asks for SCTs): @sigstore/verify checks every embedded SCT whatever its threshold; it reads them
 * from the leaf's clone(), so this leaf's clone shows no SCT extension (the certificate itself,
 * chain and signature checks included, is unchanged).
 */
export class SctIgnored extends X509Certificate {
  override clone(): X509Certificate {
    const copy = X509Certificate.parse(Buffer.from(this.root.toDER()));
    const extensions = copy.extensions.filter((extension) => extension.subs[0]?.toOID() !== EXTENSION_OID_SCT);
    Object.defineProperty(copy, 'extensions', { value: extensions });
    return copy;
  }
}
