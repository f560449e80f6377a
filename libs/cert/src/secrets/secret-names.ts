import { tlsSecretNames } from '@edict/config';

/** Secret names as Kyverno's cert renewer spells them: `<service>.<namespace>.svc.kyverno-tls-{ca,pair}`. */
export function defaultCaSecretName(serviceName: string, namespace: string): string {
  return tlsSecretNames(serviceName, namespace).ca;
}

export function defaultPairSecretName(serviceName: string, namespace: string): string {
  return tlsSecretNames(serviceName, namespace).pair;
}
