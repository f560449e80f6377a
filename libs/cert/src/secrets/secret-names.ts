/** Secret names as Kyverno's cert renewer spells them: `<service>.<namespace>.svc.kyverno-tls-{ca,pair}`. */
export function defaultCaSecretName(serviceName: string, namespace: string): string {
  return `${serviceName}.${namespace}.svc.kyverno-tls-ca`;
}

export function defaultPairSecretName(serviceName: string, namespace: string): string {
  return `${serviceName}.${namespace}.svc.kyverno-tls-pair`;
}
