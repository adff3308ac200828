#!/usr/bin/env bash
# Checks infra/prometheus and the Grafana dashboard's queries with a pinned promtool:
#   promtool check config / check rules (syntax; the dashboard's PromQL too)
#   promtool test rules infra/prometheus/alerts_test.yml (each alert fires, and does not)
# promtool comes from Debian bookworm's `prometheus` package, unpacked into .tools/ (nothing is
# installed or started as a service; ~6 s); where that package cannot be had, it is built from
# the same release through the Go module proxy (~12 min on 2 shared cores). Later runs reuse the
# binary in .tools/. PROMTOOL=path overrides both.
set -euo pipefail
cd "$(dirname "$0")/.."

PROMETHEUS_DEB_VERSION="2.42.0+ds-5+deb12u1"
PROMETHEUS_GO_VERSION="v0.42.0"  # Prometheus 2.42.0 as a Go module
TOOLS=".tools/prometheus-2.42.0"

work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

promtool_from_debian() {
  command -v apt-get >/dev/null || return 1
  echo "check_alerts: fetching promtool from Debian's prometheus=${PROMETHEUS_DEB_VERSION}"
  # apt-get download needs the package lists, which a fresh machine may not have yet.
  if ! (cd "$work" && apt-get download -qq "prometheus=${PROMETHEUS_DEB_VERSION}" 2>/dev/null); then
    if [[ $EUID -eq 0 ]]; then apt-get update -qq || return 1; fi
    (cd "$work" && apt-get download -qq "prometheus=${PROMETHEUS_DEB_VERSION}") || return 1
  fi
  dpkg-deb -x "$work"/prometheus_*.deb "$work/deb"
  install -m 0755 "$work/deb/usr/bin/promtool" "$PROMTOOL"
}

promtool_from_go() {
  command -v go >/dev/null || return 1
  echo "check_alerts: building promtool ${PROMETHEUS_GO_VERSION} from the Go module proxy"
  # `go install ...@version` refuses this module (its go.mod has replace directives): build
  # inside the downloaded module instead, with throwaway module and build caches.
  export GOPATH="$work/go" GOCACHE="$work/go-build" GOFLAGS=-modcacherw
  go mod download "github.com/prometheus/prometheus@${PROMETHEUS_GO_VERSION}" || return 1
  (cd "$GOPATH/pkg/mod/github.com/prometheus/prometheus@${PROMETHEUS_GO_VERSION}" &&
    go build -o "$OLDPWD/$PROMTOOL" ./cmd/promtool) || return 1
}

if [[ -n ${PROMTOOL:-} ]]; then
  [[ -x $PROMTOOL ]] || { echo "check_alerts: PROMTOOL=$PROMTOOL is not executable" >&2; exit 1; }
else
  PROMTOOL="$TOOLS/promtool"
  if [[ ! -x $PROMTOOL ]]; then
    mkdir -p "$TOOLS"
    promtool_from_debian || promtool_from_go || {
      echo "check_alerts: could not get promtool 2.42.0; set PROMTOOL to one" >&2
      exit 1
    }
  fi
fi
PROMTOOL=$(realpath "$PROMTOOL")
"$PROMTOOL" --version | head -n 1

"$PROMTOOL" check config infra/prometheus/prometheus.yml
"$PROMTOOL" check rules infra/prometheus/recording.yml infra/prometheus/alerts.yml

# Each dashboard query, with Grafana's interval variables filled in, becomes a recording rule,
# so that `check rules` parses it with Prometheus' own PromQL parser.
python3 - infra/grafana/selfimprint.json >"$work/dashboard_queries.yml" <<'PY'
import json
import sys

with open(sys.argv[1], encoding="utf-8") as f:
    dashboard = json.load(f)
panels = [p for top in dashboard["panels"] for p in [top, *top.get("panels", [])]]
print("groups:\n  - name: dashboard\n    rules:")
for panel in panels:
    for target in panel.get("targets", []):
        expr = target["expr"]
        for variable in ("$__rate_interval", "$__interval", "$__range"):
            expr = expr.replace(variable, "5m")
        print(f"      - record: dashboard_panel_{panel['id']}_{target['refId']}")
        print(f"        expr: {json.dumps(expr)}")
PY
echo "dashboard queries:"
"$PROMTOOL" check rules "$work/dashboard_queries.yml"

cd infra/prometheus
"$PROMTOOL" test rules alerts_test.yml
