/** Small policies for the admission specs, each the way a user would write it. */

export const REQUIRE_OWNER_ENFORCE = `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: require-owner
spec:
  rules:
    - name: owner-label
      match:
        any:
          - resources:
              kinds: [Pod]
      validate:
        failureAction: Enforce
        message: "The label \`owner\` is required."
        pattern:
          metadata:
            labels:
              owner: "?*"
`;

export const COST_CENTER_AUDIT_WARN = `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: cost-center
  annotations:
    policies.kyverno.io/category: Best Practices
    policies.kyverno.io/severity: medium
spec:
  emitWarning: true
  rules:
    - name: cost-center-label
      match:
        any:
          - resources:
              kinds: [Pod]
      validate:
        failureAction: Audit
        message: "Pods need a cost-center label."
        pattern:
          metadata:
            labels:
              cost-center: "?*"
`;

export const TEAM_AUDIT_QUIET = `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: team-is-known
spec:
  rules:
    - name: known-team
      match:
        any:
          - resources:
              kinds: [Pod]
      validate:
        failureAction: Audit
        message: "team must be platform."
        pattern:
          metadata:
            labels:
              team: platform
`;

export const BROKEN_ENFORCE = `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: needs-config
spec:
  failurePolicy: FAILURE_POLICY
  rules:
    - name: reads-missing-variable
      match:
        any:
          - resources:
              kinds: [Pod]
      validate:
        failureAction: Enforce
        deny:
          conditions:
            any:
              - key: "{{ nothing.here }}"
                operator: Equals
                value: "x"
`;

export const ADD_LABELS = `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: add-admitted-label
spec:
  rules:
    - name: admitted
      match:
        any:
          - resources:
              kinds: [Pod]
      mutate:
        patchStrategicMerge:
          metadata:
            labels:
              edict.io/admitted: "true"
`;

export const COPY_LABEL_TO_ANNOTATION = `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: copy-admitted
spec:
  rules:
    - name: annotate
      match:
        any:
          - resources:
              kinds: [Pod]
      mutate:
        patchesJson6902: |-
          - op: add
            path: /metadata/annotations/edict.io~1seen
            value: '{{ request.object.metadata.labels."edict.io/admitted" }}'
          - op: add
            path: /spec/containers/0/imagePullPolicy
            value: Always
`;

export const BROKEN_MUTATE = `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: broken-mutate
spec:
  failurePolicy: FAILURE_POLICY
  rules:
    - name: bad-variable
      match:
        any:
          - resources:
              kinds: [Pod]
      mutate:
        patchStrategicMerge:
          metadata:
            labels:
              copied: "{{ nothing.here }}"
`;

export const GENERATE_AND_MUTATE_EXISTING = `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: background-work
spec:
  rules:
    - name: default-netpol
      match:
        any:
          - resources:
              kinds: [Pod]
      generate:
        synchronize: true
        apiVersion: v1
        kind: ConfigMap
        name: "{{ request.object.metadata.name }}-seen"
        namespace: "{{ request.object.metadata.namespace }}"
        data:
          data:
            seen: "yes"
    - name: touch-secrets
      match:
        any:
          - resources:
              kinds: [Pod]
      mutate:
        targets:
          - apiVersion: v1
            kind: Secret
            namespace: "{{ request.object.metadata.namespace }}"
        patchStrategicMerge:
          metadata:
            labels:
              touched: "yes"
`;

export const PROTECT_PAYMENTS_DELETE = `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: protect-payments
spec:
  rules:
    - name: no-delete
      match:
        any:
          - resources:
              kinds: [Pod]
              operations: [DELETE]
      validate:
        failureAction: Enforce
        message: "Payments pods are deleted by their controller only."
        deny:
          conditions:
            all:
              - key: "{{ request.oldObject.metadata.labels.team }}"
                operator: Equals
                value: payments
`;
