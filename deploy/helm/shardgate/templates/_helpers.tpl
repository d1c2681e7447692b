{{/* The release's base name for every object, at most 52 characters (StatefulSet pods add -NNN and a hash label). */}}
{{- define "shardgate.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 52 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 52 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "shardgate.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Selects the router pods (and nothing else of the release). */}}
{{- define "shardgate.routerSelector" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: router
{{- end -}}

{{- define "shardgate.zookeeperSelector" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: zookeeper
{{- end -}}

{{- define "shardgate.secretName" -}}
{{- default (printf "%s-credentials" (include "shardgate.fullname" .)) .Values.credentials.existingSecret -}}
{{- end -}}

{{- define "shardgate.zookeeperName" -}}
{{- printf "%s-zookeeper" (include "shardgate.fullname" .) -}}
{{- end -}}

{{/* The routers' ZooKeeper connect string: every member of the in-chart ensemble, or the external one. */}}
{{- define "shardgate.zookeeperConnect" -}}
{{- if .Values.zookeeper.enabled -}}
{{- $name := include "shardgate.zookeeperName" . -}}
{{- $members := list -}}
{{- range $i := until (int .Values.zookeeper.replicas) -}}
{{- $members = append $members (printf "%s-%d.%s-headless.%s.svc:2181" $name $i $name $.Release.Namespace) -}}
{{- end -}}
{{- join "," $members -}}
{{- else -}}
{{- required "zookeeper.external.connect is required when zookeeper.enabled is false (several routers must share one ZooKeeper)" .Values.zookeeper.external.connect -}}
{{- end -}}
{{- end -}}

{{/* The router pods' termination grace: the preStop wait, the drain's grace for open transactions, and 10 s to close. */}}
{{- define "shardgate.terminationGraceSeconds" -}}
{{- add .Values.drain.preStopSleepSeconds .Values.drain.transactionGraceSeconds 10 -}}
{{- end -}}
