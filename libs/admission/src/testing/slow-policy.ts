/**
 * A tenant's slow policy as issue 32 found it: an Enforce rule with a nested foreach over every pair
 * of a Pod's containers, each pair scanning all the containers again (250 containers: 62,500 pairs,
 * 15.6 million projected names). It passes (never denies) if it ever finishes. Shared by the specs,
 * the e2e spec and the bench, so each measures the same thing.
 */
export function nestedForeachPolicy(name: string, namespace?: string) {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: namespace ? 'Policy' : 'ClusterPolicy',
    metadata: namespace ? { name, namespace } : { name },
    spec: {
      background: false,
      rules: [
        {
          name: 'every-pair',
          match: { any: [{ resources: { kinds: ['Pod'] } }] },
          validate: {
            failureAction: 'Enforce',
            foreach: [
              {
                list: 'request.object.spec.containers',
                foreach: [
                  {
                    list: 'request.object.spec.containers',
                    deny: {
                      conditions: {
                        any: [
                          {
                            key: '{{ length(request.object.spec.containers[].name) }}',
                            operator: 'Equals',
                            value: 0,
                          },
                        ],
                      },
                    },
                  },
                ],
              },
            ],
          },
        },
      ],
    },
  };
}

/** A Pod with `count` containers, as the 250-container Pods. */
export function bigPod(name: string, namespace: string, count: number) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace },
    spec: {
      containers: Array.from({ length: count }, (_, i) => ({ name: `c${i}`, image: `registry.example/app:${i}` })),
    },
  };
}

/** The other tenant's own policy beside the slow one: an Enforce rule requiring an `owner` label on Pods. */
export function requireOwnerPolicy(namespace: string) {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: 'Policy',
    metadata: { name: 'require-owner', namespace },
    spec: {
      background: false,
      rules: [
        {
          name: 'owner',
          match: { any: [{ resources: { kinds: ['Pod'] } }] },
          validate: {
            failureAction: 'Enforce',
            message: 'an owner label is required',
            pattern: { metadata: { labels: { owner: '?*' } } },
          },
        },
      ],
    },
  };
}
