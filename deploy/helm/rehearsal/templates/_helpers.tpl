{{/* Labels Helm adds to every object's metadata (never to selectors or pod templates). */}}
{{- define "rehearsal.chartLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service | quote }}
app.kubernetes.io/instance: {{ .Release.Name | quote }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}

{{/*
The objects of one YAML text from deploy/ (files/base, files/monitoring, files/cert-manager are links
into deploy/), as a list: the namespace rehearsal-system becomes the release namespace, the chart's
labels are added. Arguments: (dict "root" $ "text" <yaml> "extraLabels" <map or nil>).
*/}}
{{- define "rehearsal.objectsOf" -}}
{{- $root := .root -}}
{{- $objects := list -}}
{{- range $doc := regexSplit "(?m)^---\\s*$" .text -1 -}}
{{- $object := fromYaml (replace "rehearsal-system" $root.Release.Namespace $doc) -}}
{{- if and $object $object.kind -}}
{{- $meta := $object.metadata -}}
{{- $labels := mergeOverwrite (dict) ($meta.labels | default dict) (include "rehearsal.chartLabels" $root | fromYaml) ($.extraLabels | default dict) -}}
{{- $_ := set $meta "labels" $labels -}}
{{- $objects = append $objects $object -}}
{{- end -}}
{{- end -}}
{{- dict "objects" $objects | toYaml -}}
{{- end -}}

{{- define "rehearsal.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{/* REHEARSAL_LICENSE_PUBLIC_KEYS: the shipped key (in the image) and the chart's extra keys. */}}
{{- define "rehearsal.licenseKeyFiles" -}}
{{- $files := list -}}
{{- if .Values.licensePublicKeys.trustShipped -}}
{{- $files = append $files "/app/license-keys/rehearsal-vendor.jwk.json" -}}
{{- end -}}
{{- range .Values.licensePublicKeys.extra -}}
{{- $path := printf "/etc/rehearsal/license-keys/%s" .name -}}
{{- $files = append $files (ternary (printf "%s=%s" .kid $path) $path (not (empty .kid))) -}}
{{- end -}}
{{- join "," $files -}}
{{- end -}}

{{/*
The data of ConfigMap rehearsal-cluster-defaults (issue 30) from .Values.clusterDefaults: only the
keys given a value (an absent key is the server's built-in default), every value a string.
*/}}
{{- define "rehearsal.clusterDefaultsData" -}}
{{- $values := .Values.clusterDefaults -}}
{{- $data := dict -}}
{{- with $values.sandboxQuota.cpu }}{{ $_ := set $data "sandboxQuota.cpu" (toString .) }}{{ end -}}
{{- with $values.sandboxQuota.memory }}{{ $_ := set $data "sandboxQuota.memory" (toString .) }}{{ end -}}
{{- with $values.sandboxQuota.pods }}{{ $_ := set $data "sandboxQuota.pods" (toString .) }}{{ end -}}
{{- with $values.sandboxQuota.storage }}{{ $_ := set $data "sandboxQuota.storage" (toString .) }}{{ end -}}
{{- with $values.sandboxTtl }}{{ $_ := set $data "sandboxTtl" . }}{{ end -}}
{{- with $values.rtoTarget }}{{ $_ := set $data "rtoTarget" . }}{{ end -}}
{{- with $values.rpoTarget }}{{ $_ := set $data "rpoTarget" . }}{{ end -}}
{{- if eq (include "rehearsal.durationSeconds" $values.alerts.maxBackupAge) "0" -}}
{{- fail "clusterDefaults.alerts.maxBackupAge: must be longer than 0s" -}}
{{- end -}}
{{- $_ := set $data "alerts.maxBackupAge" $values.alerts.maxBackupAge -}}
{{- with $values.alerts.consecutiveFailures }}{{ $_ := set $data "alerts.consecutiveFailures" (toString .) }}{{ end -}}
{{- toYaml $data -}}
{{- end -}}

{{/* Seconds in a duration of the API's form (h, m, s only; the values schema checks it), e.g. 48h → 172800. */}}
{{- define "rehearsal.durationSeconds" -}}
{{- $hours := regexFind "[0-9]+h" . | trimSuffix "h" | default "0" | atoi -}}
{{- $minutes := regexFind "[0-9]+m" . | trimSuffix "m" | default "0" | atoi -}}
{{- $seconds := regexFind "[0-9]+s" . | trimSuffix "s" | default "0" | atoi -}}
{{- add (mul $hours 3600) (mul $minutes 60) $seconds -}}
{{- end -}}

{{/* "true" when an Ingress or HTTPRoute sends traffic to port 8080 (issue 30), else "". */}}
{{- define "rehearsal.routed" -}}
{{- if or .Values.ingress.enabled .Values.httpRoute.enabled }}true{{ end -}}
{{- end -}}

{{/*
What must hold before port 8080 is routed from outside the pod (issue 30): the server must demand
bearer tokens (REHEARSAL_AUTH_MODE kubernetes, the default: extraEnv may not set anything else, nor
a valueFrom the chart cannot read), and only the named peers may reach the port. Fails the render
naming the value; renders nothing.
*/}}
{{- define "rehearsal.routeGuards" -}}
{{- if include "rehearsal.routed" . -}}
{{- range .Values.extraEnv -}}
{{- if eq .name "REHEARSAL_AUTH_MODE" -}}
{{- if or .valueFrom (ne (toString .value) "kubernetes") -}}
{{- fail (printf "ingress/httpRoute: extraEnv sets REHEARSAL_AUTH_MODE %s; the API may be routed only with REHEARSAL_AUTH_MODE=kubernetes (bearer tokens, TokenReview), never to a server that accepts anonymous requests" (ternary "from a valueFrom the chart cannot read" (printf "to %q" (toString .value)) (not (empty .valueFrom)))) -}}
{{- end -}}
{{- end -}}
{{- if has .name (list "REHEARSAL_HOST" "REHEARSAL_PORT") -}}
{{- fail (printf "ingress/httpRoute: extraEnv sets %s; the routes need the API on the Service's port http (8080) on listen.podHost, which the chart sets" .name) -}}
{{- end -}}
{{- end -}}
{{- if and .Values.networkPolicy.enabled (empty .Values.networkPolicy.routeFrom) -}}
{{- fail "ingress/httpRoute: networkPolicy.routeFrom is empty; name the ingress controller's or Gateway's pods (NetworkPolicyPeers) that may reach port 8080, e.g. [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: ingress-nginx}}}]" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
The name of the ConfigMap holding the timestamp authority's CA (key ca.crt) when evidence anchors
are on and time-stamped, else "". Values from a chart without evidenceAnchors (helm upgrade
--reuse-values) count as off.
*/}}
{{- define "rehearsal.timestampAuthorityCA" -}}
{{- $anchors := .Values.evidenceAnchors | default dict -}}
{{- if and $anchors.enabled (dig "timestampAuthority" "url" "" $anchors) -}}
{{- dig "timestampAuthority" "caConfigMap" "" $anchors -}}
{{- end -}}
{{- end -}}

{{/*
What must hold for evidence anchors beyond the values schema: credentials. Without a Secret of
their own the server takes the evidence archive's (AWS_*), which the chart sets only with the
archive on; otherwise the server would stop at start-up with "invalid configuration". Fails the
render naming the value; renders nothing.
*/}}
{{- define "rehearsal.evidenceAnchorsGuards" -}}
{{- $anchors := .Values.evidenceAnchors | default dict -}}
{{- if and $anchors.enabled (not $anchors.credentialsSecret) (not (dig "enabled" false (.Values.evidenceArchive | default dict))) -}}
{{- fail "evidenceAnchors.credentialsSecret: name a Secret with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY for the anchor bucket (without one the anchors use the evidence archive's credentials, and evidenceArchive is not enabled)" -}}
{{- end -}}
{{- end -}}
