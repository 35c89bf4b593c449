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
