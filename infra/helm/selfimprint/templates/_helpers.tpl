{{/* Names and labels ------------------------------------------------------------------------ */}}

{{- define "selfimprint.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "selfimprint.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "selfimprint.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "selfimprint.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: selfimprint
{{- end -}}

{{/* Selector labels of one component: (dict "root" $ "component" "api") */}}
{{- define "selfimprint.selectorLabels" -}}
app.kubernetes.io/name: {{ include "selfimprint.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "selfimprint.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "selfimprint.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "selfimprint.secretName" -}}
{{- default (include "selfimprint.fullname" .) .Values.secrets.existingSecret -}}
{{- end -}}

{{- define "selfimprint.keysClaim" -}}
{{- default (printf "%s-keys" (include "selfimprint.fullname" .)) .Values.dataKeys.existingClaim -}}
{{- end -}}

{{/* The image of a role: (dict "root" $ "variant" "auto|cpu|gpu") */}}
{{- define "selfimprint.image" -}}
{{- $image := .root.Values.image -}}
{{- $variant := .variant -}}
{{- if eq $variant "auto" -}}
{{- $variant = ternary "gpu" "cpu" (eq (toString (index .root.Values.config "embedder")) "bge-m3") -}}
{{- end -}}
{{- $tag := default .root.Chart.AppVersion $image.tag -}}
{{- if eq $variant "gpu" -}}
{{- $tag = printf "%s%s" $tag $image.gpuTagSuffix -}}
{{- end -}}
{{- printf "%s:%s" $image.repository $tag -}}
{{- end -}}

{{/* Settings ---------------------------------------------------------------------------------- */}}

{{/* A setting's value as its environment variable reads: whole numbers without an exponent
     (YAML numbers reach templates as float64), lists and maps as JSON (pydantic-settings
     parses complex fields from JSON). */}}
{{- define "selfimprint.envValue" -}}
{{- $v := . -}}
{{- if kindIs "float64" $v -}}
{{- if eq $v (float64 (int64 $v)) -}}{{ int64 $v }}{{- else -}}{{ $v }}{{- end -}}
{{- else if or (kindIs "map" $v) (kindIs "slice" $v) -}}
{{- toJson $v -}}
{{- else -}}
{{- toString $v -}}
{{- end -}}
{{- end -}}

{{/* Settings the chart sets itself (ports and paths must match the pods' specs) and the secret
     ones, which belong in the Secret: refused in `config` and in a role's `config`. */}}
{{- define "selfimprint.checkConfig" -}}
{{- $owned := list "bind_host" "data_dir" "api_port" "codec_port" "worker_metrics_port" "worker_sdk_metrics_port" "kek_path" "sleep_tuning_file" "temporal_tls_ca_path" "temporal_tls_cert_path" "temporal_tls_key_path" -}}
{{- $secret := list "neo4j_password" "s3_access_key_id" "s3_secret_access_key" "temporal_api_key" "temporal_payload_keys" "llm_api_key" "codec_token" -}}
{{- range $key, $_ := .config -}}
{{- if not (regexMatch "^[a-z][a-z0-9_]*$" $key) -}}
{{- fail (printf "%s.%s: settings are named by their field name in lower case (e.g. neo4j_uri), not %q" $.where $key $key) -}}
{{- end -}}
{{- if has $key $owned -}}
{{- fail (printf "%s.%s is set by the chart from its own values (bindHost, api.port, codec.port, metrics.*, dataKeys, sleepTuning, temporalTLS)" $.where $key) -}}
{{- end -}}
{{- if has $key $secret -}}
{{- fail (printf "%s.%s is a secret: put SELFIMPRINT_%s in the Secret (secrets.values or secrets.existingSecret)" $.where $key (upper $key)) -}}
{{- end -}}
{{- if and $.role (has $key (list "embedder" "embedder_model_path")) -}}
{{- fail (printf "%s.%s is release-wide (config.%s): the API must embed queries with the model that embedded the memories" $.where $key $key) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Release-wide checks, included by the ConfigMap: what would otherwise start processes that
     look for the local dev stack or a model that is not there. */}}
{{- define "selfimprint.validate" -}}
{{- $c := .Values.config -}}
{{- include "selfimprint.checkConfig" (dict "config" $c "where" "config" "role" false) -}}
{{- range $key := list "temporal_address" "neo4j_uri" "s3_endpoint_url" "llm_base_url" -}}
{{- if not (index $c $key) -}}
{{- fail (printf "config.%s is required: unset, the processes would look for the local dev stack, which the chart does not run" $key) -}}
{{- end -}}
{{- end -}}
{{- if and (eq (toString (index $c "embedder")) "bge-m3") (not (index $c "embedder_model_path")) -}}
{{- fail "config.embedder is bge-m3: set config.embedder_model_path to the model folder (inside models.mountPath)" -}}
{{- end -}}
{{- if and .Values.models.enabled (not .Values.models.volume) -}}
{{- fail "models.enabled: set models.volume to the volume holding the model folder" -}}
{{- end -}}
{{- with .Values.temporalTLS -}}
{{- if and .secretName (ne (empty .certKey) (empty .keyKey)) -}}
{{- fail "temporalTLS: certKey and keyKey go together (the client certificate and its key)" -}}
{{- end -}}
{{- end -}}
{{- if and .Values.codec.enabled (not .Values.codec.uiOrigin) -}}
{{- fail "codec.enabled: set codec.uiOrigin to the Temporal UI's origin (e.g. https://temporal.example.com): browsers call the codec server from there" -}}
{{- end -}}
{{- include "selfimprint.checkConfig" (dict "config" .Values.api.config "where" "api.config" "role" true) -}}
{{- include "selfimprint.checkConfig" (dict "config" .Values.codec.config "where" "codec.config" "role" true) -}}
{{- range $name, $w := .Values.workers -}}
{{- if not (has $w.role (list "cpu" "gpu")) -}}
{{- fail (printf "workers.%s.role must be cpu or gpu, not %q" $name (toString $w.role)) -}}
{{- end -}}
{{- include "selfimprint.checkConfig" (dict "config" $w.config "where" (printf "workers.%s.config" $name) "role" true) -}}
{{- end -}}
{{- end -}}

{{/* Secret keys per role, and whether a pod may start without them. */}}
{{- define "selfimprint.secretKeys" -}}
{{- $c := .Values.config -}}
{{- $s3Keys := not (eq (toString (index $c "s3_default_credentials")) "true") -}}
{{- $payloadKeys := not (eq (toString (index $c "temporal_encrypt_payloads")) "false") -}}
SELFIMPRINT_NEO4J_PASSWORD: {roles: [api, cpu, gpu], required: true}
{{- if $s3Keys }}
SELFIMPRINT_S3_ACCESS_KEY_ID: {roles: [api, cpu], required: true}
SELFIMPRINT_S3_SECRET_ACCESS_KEY: {roles: [api, cpu], required: true}
{{- end }}
SELFIMPRINT_KEK: {roles: [{{ include "selfimprint.keyRoles" . }}], required: true}
{{- if $payloadKeys }}
SELFIMPRINT_TEMPORAL_PAYLOAD_KEYS: {roles: [api, cpu, gpu, codec], required: true}
{{- end }}
SELFIMPRINT_TEMPORAL_API_KEY: {roles: [api, cpu, gpu], required: false}
SELFIMPRINT_LLM_API_KEY: {roles: [api, gpu], required: false}
SELFIMPRINT_CODEC_TOKEN: {roles: [codec], required: true}
SELFIMPRINT_COLLECTIVE_PSEUDONYM_KEY: {roles: [api, cpu], required: true}
{{- end -}}

{{/* The roles that read per-user data keys (the KEK and the data-keys volume): the API and
     the cpu workers for the graph archive; with per-user Temporal payload keys (issue 37,
     config.temporal_user_payload_keys, on unless false, with encryption on) every process
     that encodes or decodes a user's payloads: the gpu workers and the codec server too. */}}
{{- define "selfimprint.keyRoles" -}}
{{- $c := .Values.config -}}
{{- $encrypt := not (eq (toString (index $c "temporal_encrypt_payloads")) "false") -}}
{{- $perUser := not (eq (toString (index $c "temporal_user_payload_keys")) "false") -}}
{{- if and $encrypt $perUser -}}
api, cpu, gpu, codec
{{- else -}}
api, cpu
{{- end -}}
{{- end -}}

{{/* Pods ---------------------------------------------------------------------------------- */}}

{{/* Env of one role's container: (dict "root" $ "role" "api" "config" <role config>
     "extraEnv" <list>) */}}
{{- define "selfimprint.env" -}}
{{- $root := .root -}}
{{- $role := .role -}}
{{- $keys := include "selfimprint.secretKeys" $root | fromYaml -}}
{{- range $key := keys $keys | sortAlpha }}
{{- $spec := index $keys $key }}
{{- if has $role $spec.roles }}
- name: {{ $key }}
  valueFrom:
    secretKeyRef:
      name: {{ include "selfimprint.secretName" $root }}
      key: {{ $key }}
      {{- if not $spec.required }}
      optional: true
      {{- end }}
{{- end }}
{{- end }}
{{- if and (eq $role "cpu") $root.Values.sleepTuning }}
- name: SELFIMPRINT_SLEEP_TUNING_FILE
  value: /etc/selfimprint/sleep-tuning/sleep-tuning.json
{{- end }}
{{- if and $root.Values.temporalTLS.secretName (has $role (list "api" "cpu" "gpu")) }}
{{- range $file := list "ca" "cert" "key" }}
{{- with index $root.Values.temporalTLS (printf "%sKey" $file) }}
- name: SELFIMPRINT_TEMPORAL_TLS_{{ upper $file }}_PATH
  value: /etc/selfimprint/temporal-tls/{{ . }}
{{- end }}
{{- end }}
{{- end }}
{{- range $key := keys .config | sortAlpha }}
{{- $value := index $.config $key }}
{{- if not (or (kindIs "invalid" $value) (eq (toString $value) "")) }}
- name: {{ printf "SELFIMPRINT_%s" (upper $key) }}
  value: {{ include "selfimprint.envValue" $value | quote }}
{{- end }}
{{- end }}
{{- with $root.Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- with .extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Volumes of one role: (dict "root" $ "role" "api") */}}
{{- define "selfimprint.volumes" -}}
{{- $root := .root -}}
- name: tmp
  emptyDir:
    sizeLimit: {{ $root.Values.tmpSizeLimit }}
- name: home
  emptyDir: {}
{{- if has .role (splitList ", " (include "selfimprint.keyRoles" $root)) }}
- name: data-keys
  persistentVolumeClaim:
    claimName: {{ include "selfimprint.keysClaim" $root }}
{{- end }}
{{- if and $root.Values.models.enabled (has .role (list "api" "gpu")) }}
- name: models
  {{- toYaml $root.Values.models.volume | nindent 2 }}
{{- end }}
{{- if and (eq .role "cpu") $root.Values.sleepTuning }}
- name: sleep-tuning
  configMap:
    name: {{ include "selfimprint.fullname" $root }}-sleep-tuning
{{- end }}
{{- if and $root.Values.temporalTLS.secretName (has .role (list "api" "cpu" "gpu")) }}
- name: temporal-tls
  secret:
    secretName: {{ $root.Values.temporalTLS.secretName }}
    defaultMode: 288  # 0440: the pods' group (fsGroup) reads, nobody writes
    items:
      {{- range $file := list "ca" "cert" "key" }}
      {{- with index $root.Values.temporalTLS (printf "%sKey" $file) }}
      - key: {{ . }}
        path: {{ . }}
      {{- end }}
      {{- end }}
{{- end }}
{{- end -}}

{{- define "selfimprint.volumeMounts" -}}
{{- $root := .root -}}
- name: tmp
  mountPath: /tmp
# HOME and SELFIMPRINT_DATA_DIR: nothing durable lives here but the data keys below.
- name: home
  mountPath: /var/lib/selfimprint
{{- if has .role (splitList ", " (include "selfimprint.keyRoles" $root)) }}
- name: data-keys
  mountPath: /var/lib/selfimprint/keys
{{- end }}
{{- if and $root.Values.models.enabled (has .role (list "api" "gpu")) }}
- name: models
  mountPath: {{ $root.Values.models.mountPath }}
  readOnly: true
{{- end }}
{{- if and (eq .role "cpu") $root.Values.sleepTuning }}
- name: sleep-tuning
  mountPath: /etc/selfimprint/sleep-tuning
  readOnly: true
{{- end }}
{{- if and $root.Values.temporalTLS.secretName (has .role (list "api" "cpu" "gpu")) }}
- name: temporal-tls
  mountPath: /etc/selfimprint/temporal-tls
  readOnly: true
{{- end }}
{{- end -}}

{{/* Pod annotations that roll the pods when the settings they read at start change. */}}
{{- define "selfimprint.checksums" -}}
checksum/config: {{ include (print .Template.BasePath "/configmap.yaml") . | sha256sum }}
{{- if not .Values.secrets.existingSecret }}
checksum/secret: {{ include (print .Template.BasePath "/secret.yaml") . | sha256sum }}
{{- end }}
{{- if .Values.sleepTuning }}
checksum/sleep-tuning: {{ toJson .Values.sleepTuning | sha256sum }}
{{- end }}
{{- end -}}
