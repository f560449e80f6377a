{{/* The install name every object's name derives from (the controllers derive the same names from it). */}}
{{- define "edict.installName" -}}
{{- $name := default .Release.Name .Values.fullnameOverride -}}
{{- if not (regexMatch "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" $name) -}}
{{- fail (printf "fullnameOverride (or the release name) %q must be a DNS label" $name) -}}
{{- end -}}
{{- if gt (len $name) 59 -}}
{{- fail (printf "fullnameOverride (or the release name) %q must be at most 59 characters" $name) -}}
{{- end -}}
{{- $name -}}
{{- end -}}

{{- define "edict.namespace" -}}
{{- default .Release.Namespace .Values.namespaceOverride -}}
{{- end -}}

{{- define "edict.configMapName" -}}
{{- default (include "edict.installName" .) .Values.config.name -}}
{{- end -}}

{{/* The kyverno-metrics ConfigMap's name (Kyverno's `<fullname>-metrics`); a ConfigMap made apart must be named. */}}
{{- define "edict.metricsConfigMapName" -}}
{{- if .Values.metricsConfig.create -}}
{{- default (printf "%s-metrics" (include "edict.installName" .)) .Values.metricsConfig.name -}}
{{- else -}}
{{- required "metricsConfig.name is required when metricsConfig.create is false" .Values.metricsConfig.name -}}
{{- end -}}
{{- end -}}

{{/* The controllers, as (values key, component name) pairs; `enabled` is absent for the admission controller (always on). */}}
{{- define "edict.components" -}}
admissionController: admission-controller
backgroundController: background-controller
reportsController: reports-controller
cleanupController: cleanup-controller
{{- end -}}

{{/* Whether a component (dict: root, key) is installed. */}}
{{- define "edict.enabled" -}}
{{- $values := index .root.Values .key -}}
{{- if or (eq .key "admissionController") $values.enabled -}}true{{- end -}}
{{- end -}}

{{/* Labels of a component's objects (dict: root, component); the same ones select its aggregated roles. */}}
{{- define "edict.labels" -}}
app.kubernetes.io/component: {{ .component }}
app.kubernetes.io/instance: {{ include "edict.installName" .root }}
app.kubernetes.io/part-of: {{ include "edict.installName" .root }}
app.kubernetes.io/name: edict
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" }}
{{- with .root.Values.customLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "edict.selectorLabels" -}}
app.kubernetes.io/component: {{ .component }}
app.kubernetes.io/instance: {{ include "edict.installName" .root }}
app.kubernetes.io/part-of: {{ include "edict.installName" .root }}
{{- end -}}

{{/* A component's ServiceAccount name (dict: root, key, component). */}}
{{- define "edict.serviceAccountName" -}}
{{- $values := index .root.Values .key -}}
{{- default (printf "%s-%s" (include "edict.installName" .root) .component) $values.rbac.serviceAccount.name -}}
{{- end -}}

{{/* The name of a component's Deployment and metrics Service base (dict: root, component). */}}
{{- define "edict.componentName" -}}
{{- printf "%s-%s" (include "edict.installName" .root) .component -}}
{{- end -}}

{{/*
A component's image (dict: root, key): Kyverno's per-controller image (`admissionController.container.image`,
`<controller>.image`), each field falling back to the top-level `image`; `global.image.registry` wins
over both registries, as in Kyverno's chart.
*/}}
{{- define "edict.image" -}}
{{- $values := index .root.Values .key -}}
{{- $own := (eq .key "admissionController") | ternary (dig "container" "image" dict $values) ($values.image | default dict) -}}
{{- $image := .root.Values.image -}}
{{- $registry := dig "image" "registry" "" .root.Values.global | default $own.registry | default $own.defaultRegistry | default $image.registry -}}
{{- $repository := $own.repository | default $image.repository -}}
{{- $tag := $own.tag | default $image.tag | default .root.Chart.AppVersion -}}
{{- printf "%s/%s:%s" $registry $repository (toString $tag) -}}
{{- end -}}

{{- define "edict.imagePullPolicy" -}}
{{- $values := index .root.Values .key -}}
{{- $own := (eq .key "admissionController") | ternary (dig "container" "image" dict $values) ($values.image | default dict) -}}
{{- $own.pullPolicy | default .root.Values.image.pullPolicy -}}
{{- end -}}

{{/* Pod image pull secrets (list of names or {name}): `global.imagePullSecrets` wins over the component's, as in Kyverno's chart. */}}
{{- define "edict.podImagePullSecrets" -}}
{{- $secrets := list -}}
{{- range (dig "imagePullSecrets" list .root.Values.global | default .own) -}}
{{- $secrets = append $secrets (kindIs "string" . | ternary (dict "name" .) .) -}}
{{- end -}}
{{- with $secrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end -}}
{{- end -}}

{{/*
Kyverno's `--imagePullSecrets` from its values: the Secrets the chart creates from `imagePullSecrets`
(registry credentials) and the `existingImagePullSecrets` names; empty when neither is set.
*/}}
{{- define "edict.registrySecretNames" -}}
{{- $names := concat (keys .Values.imagePullSecrets | sortAlpha) (.Values.existingImagePullSecrets | default list) -}}
{{- join "," $names -}}
{{- end -}}

{{/* A Go duration (`1h30m`, `90s`, `500ms`) in milliseconds, for Edict's `_MS` variables (dict: value, name). */}}
{{- define "edict.durationMs" -}}
{{- $text := toString .value | replace "ms" "x" -}}
{{- if or (eq $text "") (not (regexMatch "^([0-9]+h)?([0-9]+m)?([0-9]+s)?([0-9]+x)?$" $text)) -}}
{{- fail (printf "%s: %q is not a duration such as 1h, 30m, 90s or 500ms" .name (toString .value)) -}}
{{- end -}}
{{- $ms := 0 -}}
{{- range $unit, $factor := dict "h" 3600000 "m" 60000 "s" 1000 "x" 1 -}}
{{- with regexFind (printf "[0-9]+%s" $unit) $text -}}
{{- $ms = add $ms (mul (trimSuffix $unit . | int64) $factor) -}}
{{- end -}}
{{- end -}}
{{- $ms -}}
{{- end -}}

{{/*
Kyverno values Edict cannot honour (files/refused.json, generated from the parity table's reasons):
each one set fails the install with its reason instead of being ignored. An entry with `allowed` is
refused only when set to something else (the behaviour Edict has).
*/}}
{{- define "edict.refuseUnsupported" -}}
{{- range $path, $entry := .Files.Get "files/refused.json" | fromJson -}}
{{- $node := $.Values -}}
{{- $found := true -}}
{{- range $part := splitList "." $path -}}
{{- if and $found (kindIs "map" $node) (hasKey $node $part) -}}
{{- $node = index $node $part -}}
{{- else -}}
{{- $found = false -}}
{{- end -}}
{{- end -}}
{{- if and $found (not (kindIs "invalid" $node)) -}}
{{- if or (not (hasKey $entry "allowed")) (ne (toJson $node) (toJson $entry.allowed)) -}}
{{- fail (printf "%s is a Kyverno value Edict does not honour: %s" $path $entry.reason) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Whether a component serves HTTPS (its webhooks; health and metrics on the same port). */}}
{{- define "edict.https" -}}
{{- if or (eq .component "admission-controller") (eq .component "cleanup-controller") -}}true{{- end -}}
{{- end -}}

{{/* The ConfigMap's resourceFilters, as Kyverno's chart computes them from its values. */}}
{{- define "edict.resourceFilters" -}}
{{- $config := .Values.config -}}
{{- $filters := $config.resourceFilters | default list -}}
{{- if $config.excludeKyvernoNamespace -}}
{{- $filters = prepend $filters (printf "[*/*,%s,*]" (include "edict.namespace" .)) -}}
{{- end -}}
{{- range $config.resourceFiltersExclude -}}
{{- $filters = without $filters . -}}
{{- end -}}
{{- range $namespace := $config.resourceFiltersExcludeNamespaces -}}
{{- range $filter := $filters -}}
{{- if contains (printf ",%s," $namespace) $filter -}}
{{- $filters = without $filters $filter -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $filters = concat $filters ($config.resourceFiltersInclude | default list) -}}
{{- range $config.resourceFiltersIncludeNamespaces -}}
{{- $filters = append $filters (printf "[*/*,%s,*]" .) -}}
{{- end -}}
{{- join "" $filters -}}
{{- end -}}

{{/*
The ConfigMap's webhooks (a JSON list; Kyverno's single object is taken as a one-entry list): with
`excludeKyvernoNamespace`, each entry's namespaceSelector also excludes the install namespace, and an
empty value becomes that one exclusion, as in Kyverno's chart.
*/}}
{{- define "edict.webhooks" -}}
{{- $webhooks := .Values.config.webhooks | default list -}}
{{- if kindIs "map" $webhooks -}}
{{- $webhooks = list $webhooks -}}
{{- end -}}
{{- if .Values.config.excludeKyvernoNamespace -}}
{{- $exclude := dict "key" "kubernetes.io/metadata.name" "operator" "NotIn" "values" (list (include "edict.namespace" .)) -}}
{{- $result := list -}}
{{- range $webhook := $webhooks | default (list dict) -}}
{{- $selector := $webhook.namespaceSelector | default dict -}}
{{- $expressions := append ($selector.matchExpressions | default list) $exclude -}}
{{- $newSelector := dict "matchExpressions" $expressions -}}
{{- with $selector.matchLabels -}}
{{- $_ := set $newSelector "matchLabels" . -}}
{{- end -}}
{{- $result = append $result (merge (dict "namespaceSelector" $newSelector) (omit $webhook "namespaceSelector")) -}}
{{- end -}}
{{- toJson $result -}}
{{- else if $webhooks -}}
{{- toJson $webhooks -}}
{{- end -}}
{{- end -}}
