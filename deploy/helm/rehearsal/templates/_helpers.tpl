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
