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

{{- define "edict.image" -}}
{{- $image := .Values.image -}}
{{- printf "%s/%s:%s" $image.registry $image.repository (default .Chart.AppVersion $image.tag) -}}
{{- end -}}

{{/* Whether a component serves HTTPS (its webhooks; health and metrics on the same port). */}}
{{- define "edict.https" -}}
{{- if or (eq .component "admission-controller") (eq .component "cleanup-controller") -}}true{{- end -}}
{{- end -}}
