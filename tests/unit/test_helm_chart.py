"""The Helm chart's rendered manifests, checked against the code they deploy.

`helm template` renders infra/helm/selfimprint with its defaults and with each ci/*-values.yaml;
the manifests must then hold what a cluster cannot tell us until it is too late: every process's
environment parses into `Settings` and addresses the external services (never the local dev
stack), every secret a pod needs is a key of its Secret, ports and probes name real ports and
real routes, pods run as non-root with resources, and the PDBs, Services, HPAs and
ServiceMonitors select what they mean to. Schema validity against the Kubernetes API is
kubeconform's job (scripts/check_helm.sh, which also installs the pinned helm).

helm is looked up as $SELFIMPRINT_HELM, then the copy check_helm.sh caches in .tools/, then PATH;
without one these tests skip, except under check_helm.sh (which sets SELFIMPRINT_HELM).
"""

from __future__ import annotations

import asyncio
import base64
import http.server
import os
import re
import shutil
import subprocess
import sys
import threading
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import SecretStr

from selfimprint.adapters.crypto import KEK_ENV_VAR, load_kek
from selfimprint.adapters.payload_codec import parse_keys
from selfimprint.config import Settings
from selfimprint.domain.sleep_tuning import SleepTuning

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "infra" / "helm" / "selfimprint"
HELM_VERSION = "v3.22.0"  # scripts/check_helm.sh pins and caches it
VALUE_SETS = ("defaults", *sorted(p.stem for p in (CHART / "ci").glob("*-values.yaml")))
PROMETHEUS_CONFIG = ROOT / "infra" / "prometheus" / "prometheus.yml"

Doc = dict[str, Any]

SECRET_FIELDS = frozenset(
    name
    for name, field in Settings.model_fields.items()
    if field.annotation is SecretStr or SecretStr in typing.get_args(field.annotation)
)
# Keys a process reads from its environment beyond the Settings fields.
EXTRA_SECRET_VARS = frozenset({KEK_ENV_VAR})
# What an existing Secret (not rendered) would hold: values that parse, for the Settings check.
PLACEHOLDER_KEY = base64.b64encode(bytes(range(32))).decode()


def _helm() -> str:
    explicit = os.environ.get("SELFIMPRINT_HELM")
    if explicit:
        return explicit  # check_helm.sh: a missing binary must fail, not skip
    cached = ROOT / ".tools" / f"helm-{HELM_VERSION}" / "helm"
    if cached.exists():
        return str(cached)
    found = shutil.which("helm")
    if found is None:
        pytest.skip("no helm: run scripts/check_helm.sh (it installs the pinned one)")
    return found


def helm_template(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_helm(), "template", "selfimprint", str(CHART), "--namespace", "memory", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


@cache
def rendered(value_set: str) -> tuple[Doc, ...]:
    args = [] if value_set == "defaults" else ["--values", str(CHART / "ci" / f"{value_set}.yaml")]
    done = helm_template(*args)
    assert done.returncode == 0, done.stderr
    return tuple(d for d in yaml.safe_load_all(done.stdout) if d)


def of_kind(docs: tuple[Doc, ...], kind: str) -> list[Doc]:
    return [d for d in docs if d["kind"] == kind]


def named(docs: tuple[Doc, ...], kind: str, name: str) -> Doc:
    (doc,) = [d for d in of_kind(docs, kind) if d["metadata"]["name"] == name]
    return doc


def selects(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(k) == v for k, v in selector.items())


@dataclass(frozen=True)
class Workload:
    """One Deployment's single container, and the role it plays."""

    name: str
    role: str  # api | cpu | gpu | codec
    deployment: Doc

    @property
    def pod(self) -> Doc:
        spec: Doc = self.deployment["spec"]["template"]["spec"]
        return spec

    @property
    def labels(self) -> dict[str, str]:
        labels: dict[str, str] = self.deployment["spec"]["template"]["metadata"]["labels"]
        return labels

    @property
    def secret_vars(self) -> set[str]:
        env = self.container.get("env", [])
        return {v["name"] for v in env if "secretKeyRef" in v.get("valueFrom", {})}

    @property
    def container(self) -> Doc:
        (container,) = self.pod["containers"]
        assert isinstance(container, dict)
        return container

    def port(self, name: str) -> int:
        ports = {p["name"]: p["containerPort"] for p in self.container.get("ports", [])}
        assert name in ports, f"{self.name}: no container port named {name!r}"
        return int(ports[name])


def workloads(docs: tuple[Doc, ...]) -> list[Workload]:
    out = []
    for deployment in of_kind(docs, "Deployment"):
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        component = labels["app.kubernetes.io/component"]
        role = labels.get("selfimprint.io/worker-role", component)
        out.append(Workload(deployment["metadata"]["name"], role, deployment))
    return out


def environment(docs: tuple[Doc, ...], workload: Workload) -> dict[str, str]:
    """What the process would find in its environment: the ConfigMaps it loads, then its own
    variables (later ones win, as in Kubernetes), secrets read from the rendered Secret; a
    required key that is not there (an existing Secret, or one still to be filled in, without
    which the pod does not start) gets a placeholder that parses."""
    env: dict[str, str] = {}
    for source in workload.container.get("envFrom", []):
        config_map = named(docs, "ConfigMap", source["configMapRef"]["name"])
        env.update(config_map["data"])
    secrets = {s["metadata"]["name"]: s.get("stringData") or {} for s in of_kind(docs, "Secret")}
    for var in workload.container.get("env", []):
        if "value" in var:
            env[var["name"]] = var["value"]
            continue
        ref = var["valueFrom"]["secretKeyRef"]
        if ref["key"] in secrets.get(ref["name"], {}):
            env[var["name"]] = secrets[ref["name"]][ref["key"]]
        elif not ref.get("optional"):
            key_like = var["name"] in (
                KEK_ENV_VAR,
                "SELFIMPRINT_TEMPORAL_PAYLOAD_KEYS",
                "SELFIMPRINT_COLLECTIVE_PSEUDONYM_KEY",  # at least 32 bytes
            )
            env[var["name"]] = PLACEHOLDER_KEY if key_like else "placeholder"
    return env


@pytest.fixture
def settings_from() -> Iterator[Any]:
    """Settings as the process builds them at start, from exactly the given environment."""
    with pytest.MonkeyPatch.context() as patch:

        def build(env: dict[str, str]) -> Settings:
            for name in [n for n in os.environ if n.startswith("SELFIMPRINT_")]:
                patch.delenv(name)
            for name, value in env.items():
                patch.setenv(name, value)
            return Settings(_env_file=None)

        yield build


@pytest.mark.parametrize("value_set", VALUE_SETS)
def test_configmap_holds_only_non_secret_settings(value_set: str) -> None:
    docs = rendered(value_set)
    data = named(docs, "ConfigMap", "selfimprint-config")["data"]
    fields = {f"SELFIMPRINT_{name.upper()}": name for name in Settings.model_fields}
    unknown = sorted(k for k in data if k not in fields)
    assert not unknown, f"not Settings fields (a typo is silently ignored): {unknown}"
    leaked = sorted(k for k in data if fields[k] in SECRET_FIELDS)
    assert not leaked, f"secrets in a ConfigMap: {leaked}"


@pytest.mark.parametrize("value_set", VALUE_SETS)
def test_each_process_environment_parses_and_addresses_external_services(
    value_set: str, settings_from: Any
) -> None:
    docs = rendered(value_set)
    for workload in workloads(docs):
        env = environment(docs, workload)
        settings = settings_from(env)
        where = f"{value_set}/{workload.name}"
        assert not settings.local_temporal, where
        if workload.role != "codec":
            assert not (settings.local_neo4j or settings.local_s3 or settings.local_llm), where
        if workload.role in ("api", "cpu"):
            # Everything from the environment, nothing from the (empty) data dir.
            assert settings.neo4j_auth()[1], where
            if not settings.s3_default_credentials:
                assert all(settings.s3_credentials()), where
            assert load_kek(settings, env), where
            # The API counts by the collective pseudonyms, the cpu worker withdraws them.
            assert settings.collective_secret(), where
        if settings.temporal_encrypt_payloads:
            assert parse_keys(settings.secret(settings.temporal_payload_keys, "-")), where


@pytest.mark.parametrize("value_set", VALUE_SETS)
def test_secret_settings_reach_pods_only_by_secret_reference(value_set: str) -> None:
    docs = rendered(value_set)
    secret_vars = {f"SELFIMPRINT_{n.upper()}" for n in SECRET_FIELDS} | EXTRA_SECRET_VARS
    for workload in workloads(docs):
        for var in workload.container.get("env", []):
            if var["name"] in secret_vars:
                assert "secretKeyRef" in var.get("valueFrom", {}), (workload.name, var["name"])


def test_every_required_secret_key_is_in_the_chart_made_secret() -> None:
    docs = rendered("trial-values")
    (secret,) = of_kind(docs, "Secret")
    keys = set(secret["stringData"])
    for workload in workloads(docs):
        for var in workload.container.get("env", []):
            ref = var.get("valueFrom", {}).get("secretKeyRef")
            if ref is None:
                continue
            assert ref["name"] == secret["metadata"]["name"], workload.name
            assert ref.get("optional") or ref["key"] in keys, (workload.name, ref["key"])


def test_an_existing_secret_is_referenced_and_not_rendered() -> None:
    docs = rendered("production-values")
    assert not of_kind(docs, "Secret")
    names = {
        var["valueFrom"]["secretKeyRef"]["name"]
        for w in workloads(docs)
        for var in w.container["env"]
        if var["name"] in w.secret_vars
    }
    assert names == {"selfimprint-prod"}


def test_pods_get_only_the_secrets_their_role_reads() -> None:
    by_role = {w.role: w.secret_vars for w in workloads(rendered("trial-values"))}
    # The gpu workers stage the batch in extraction in Neo4j (issue 35); the codec never reads it.
    assert "SELFIMPRINT_NEO4J_PASSWORD" in by_role["gpu"]
    assert "SELFIMPRINT_NEO4J_PASSWORD" not in by_role["codec"]
    # Per-user Temporal payload keys (issue 37): every role reads the user's data key.
    assert KEK_ENV_VAR in by_role["api"] & by_role["cpu"] & by_role["gpu"] & by_role["codec"]
    assert by_role["codec"] == {
        "SELFIMPRINT_TEMPORAL_PAYLOAD_KEYS",
        "SELFIMPRINT_CODEC_TOKEN",
        KEK_ENV_VAR,
    }
    collective = "SELFIMPRINT_COLLECTIVE_PSEUDONYM_KEY"
    assert collective in by_role["api"] & by_role["cpu"] and collective not in by_role["gpu"]
    # Without them, the KEK stays with the roles that archive graphs.
    plain = helm_template(
        "--values",
        str(CHART / "ci" / "trial-values.yaml"),
        "--set",
        "config.temporal_user_payload_keys=false",
    )
    assert plain.returncode == 0, plain.stderr
    docs = tuple(d for d in yaml.safe_load_all(plain.stdout) if d)
    by_role = {w.role: w.secret_vars for w in workloads(docs)}
    assert KEK_ENV_VAR in by_role["api"] & by_role["cpu"]
    assert KEK_ENV_VAR not in by_role["gpu"] | by_role["codec"]


@pytest.mark.parametrize("value_set", VALUE_SETS)
def test_pods_run_as_non_root_read_only_with_resources(value_set: str) -> None:
    docs = rendered(value_set)
    pods = [(w.name, w.pod) for w in workloads(docs)]
    pods += [(p["metadata"]["name"], p["spec"]) for p in of_kind(docs, "Pod")]
    for name, pod in pods:
        assert pod["securityContext"]["runAsNonRoot"] is True, name
        assert pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault", name
        assert pod.get("automountServiceAccountToken") is False, name
        for container in pod["containers"]:
            security = container["securityContext"]
            assert security["readOnlyRootFilesystem"] is True, name
            assert security["allowPrivilegeEscalation"] is False, name
            assert security["capabilities"]["drop"] == ["ALL"], name
            resources = container["resources"]
            assert {"cpu", "memory"} <= set(resources["requests"]), name
            assert "memory" in resources["limits"], name


@pytest.mark.parametrize("value_set", VALUE_SETS)
def test_ports_are_the_ones_the_processes_listen_on(value_set: str, settings_from: Any) -> None:
    docs = rendered(value_set)
    for workload in workloads(docs):
        settings = settings_from(environment(docs, workload))
        assert settings.bind_host not in ("127.0.0.1", "localhost", "::1"), workload.name
        if workload.role == "api":
            assert workload.port("http") == settings.api_port
        elif workload.role == "codec":
            assert workload.port("codec") == settings.codec_port
        else:
            assert workload.port("metrics") == settings.worker_metrics_port
            assert workload.port("sdk-metrics") == settings.worker_sdk_metrics_port


@pytest.mark.parametrize("value_set", VALUE_SETS)
def test_probes_hit_real_routes_on_named_ports(value_set: str, settings_from: Any) -> None:
    from api.app import create_app

    docs = rendered(value_set)
    api = next(w for w in workloads(docs) if w.role == "api")
    routes = {getattr(r, "path", None) for r in create_app(settings_from({})).routes}
    paths = {}
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        get = api.container[probe]["httpGet"]
        api.port(get["port"])
        paths[probe] = get["path"]
        assert get["path"] in routes, (probe, get["path"])
    # /readyz (all dependencies) gates start-up; /healthz keeps a running pod in service.
    assert paths == {
        "startupProbe": "/readyz",
        "readinessProbe": "/healthz",
        "livenessProbe": "/healthz",
    }
    for workload in workloads(docs):
        if workload.role in ("cpu", "gpu"):
            get = workload.container["livenessProbe"]["httpGet"]
            assert (get["path"], workload.port(get["port"])) == (
                "/metrics",
                workload.port("metrics"),
            )
        if workload.role == "codec":
            for probe in ("readinessProbe", "livenessProbe"):
                workload.port(workload.container[probe]["tcpSocket"]["port"])


@pytest.mark.parametrize("value_set", VALUE_SETS)
def test_commands_are_real_entry_points(value_set: str) -> None:
    import importlib

    from selfimprint.cli import app

    commands = {c.name for c in app.registered_commands}
    for workload in workloads(rendered(value_set)):
        command = workload.container["command"]
        if command[:2] == ["python", "-m"]:
            module = importlib.import_module(
                command[2] + (".__main__" if command[2] == "api" else "")
            )
            assert callable(module.main), command
            assert (
                command[2]
                == {"api": "api", "cpu": "workers.cpu", "gpu": "workers.gpu"}[workload.role]
            )
        else:
            assert command == ["selfimprint", "codec-server"] and workload.role == "codec"
            assert "codec-server" in commands


def test_gpu_workers_request_a_gpu_and_the_gpu_image() -> None:
    for value_set in ("defaults", "production-values"):
        gpu = next(w for w in workloads(rendered(value_set)) if w.role == "gpu")
        assert gpu.container["resources"]["limits"]["nvidia.com/gpu"] == 1
        assert gpu.container["image"].endswith("-gpu")
    trial = next(w for w in workloads(rendered("trial-values")) if w.role == "gpu")
    assert "nvidia.com/gpu" not in trial.container["resources"]["limits"]


def test_the_api_embeds_with_the_workers_model() -> None:
    # bge-m3 queries must be embedded by bge-m3: the API gets the GPU image (FlagEmbedding) and
    # the same model folder as the GPU workers.
    docs = rendered("production-values")
    config = named(docs, "ConfigMap", "selfimprint-config")["data"]
    assert config["SELFIMPRINT_EMBEDDER"] == "bge-m3"
    model_dir = Path(config["SELFIMPRINT_EMBEDDER_MODEL_PATH"])
    for workload in workloads(docs):
        if workload.role in ("api", "gpu"):
            assert workload.container["image"].endswith("-gpu"), workload.name
            mounts = {m["mountPath"] for m in workload.container["volumeMounts"]}
            assert any(model_dir.is_relative_to(m) for m in mounts), workload.name


@pytest.mark.parametrize("value_set", VALUE_SETS)
def test_every_role_shares_the_data_keys_volume(value_set: str, settings_from: Any) -> None:
    """The api and cpu workers archive graphs under the users' data keys; with per-user
    Temporal payload keys (issue 37, on in every value set) the gpu workers and the codec
    server encode and decode users' payloads under them too."""
    docs = rendered(value_set)
    claims = set()
    for workload in workloads(docs):
        settings = settings_from(environment(docs, workload))
        assert settings.temporal_user_payload_keys, workload.name
        keys_dir = str(settings.data_dir / "keys")  # where FileDataKeyStore keeps them
        mounts = {m["mountPath"]: m["name"] for m in workload.container["volumeMounts"]}
        volumes = {v["name"]: v for v in workload.pod["volumes"]}
        claim = volumes[mounts[keys_dir]]["persistentVolumeClaim"]["claimName"]
        claims.add(claim)
        # The read-only root filesystem: HOME/data dir and /tmp must be volumes.
        assert {str(settings.data_dir), "/tmp"} <= set(mounts), workload.name
    assert len(claims) == 1
    pvcs = {p["metadata"]["name"]: p for p in of_kind(docs, "PersistentVolumeClaim")}
    (claim,) = claims
    assert pvcs[claim]["spec"]["accessModes"] == ["ReadWriteMany"]
    assert pvcs[claim]["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep"


@pytest.mark.parametrize("value_set", VALUE_SETS)
def test_each_deployment_has_one_pdb(value_set: str) -> None:
    docs = rendered(value_set)
    budgets: dict[str, int] = {w.name: 0 for w in workloads(docs)}
    for pdb in of_kind(docs, "PodDisruptionBudget"):
        selector = pdb["spec"]["selector"]["matchLabels"]
        matched = [w.name for w in workloads(docs) if selects(selector, w.labels)]
        assert len(matched) == 1, (pdb["metadata"]["name"], matched)
        budgets[matched[0]] += 1
        assert "minAvailable" not in pdb["spec"]  # a single replica must stay drainable
    # The codec server's budget is off by default (one replica, operators' tool).
    codec_budget = int(value_set == "production-values")
    wanted = {w.name: codec_budget if w.role == "codec" else 1 for w in workloads(docs)}
    assert budgets == wanted


@pytest.mark.parametrize("value_set", VALUE_SETS)
def test_services_select_pods_and_target_their_ports(value_set: str) -> None:
    docs = rendered(value_set)
    for service in of_kind(docs, "Service"):
        matched = [w for w in workloads(docs) if selects(service["spec"]["selector"], w.labels)]
        assert len(matched) == 1, service["metadata"]["name"]
        for port in service["spec"]["ports"]:
            matched[0].port(port["targetPort"])


@pytest.mark.parametrize("value_set", VALUE_SETS)
def test_autoscaled_deployments_leave_replicas_to_the_hpa(value_set: str) -> None:
    docs = rendered(value_set)
    for hpa in of_kind(docs, "HorizontalPodAutoscaler"):
        target = named(docs, "Deployment", hpa["spec"]["scaleTargetRef"]["name"])
        assert "replicas" not in target["spec"], target["metadata"]["name"]
        assert hpa["spec"]["metrics"]


def test_service_monitors_scrape_named_ports_under_the_expected_jobs() -> None:
    docs = rendered("production-values")
    monitors = of_kind(docs, "ServiceMonitor")
    assert monitors
    jobs = set()
    for monitor in monitors:
        selected = [
            s
            for s in of_kind(docs, "Service")
            if selects(monitor["spec"]["selector"]["matchLabels"], s["metadata"]["labels"])
        ]
        assert selected, monitor["metadata"]["name"]
        for endpoint in monitor["spec"]["endpoints"]:
            for service in selected:
                assert endpoint["port"] in {p["name"] for p in service["spec"]["ports"]}
            for relabel in endpoint["relabelings"]:
                if relabel["targetLabel"] == "job":
                    jobs.add(relabel["replacement"])
                for source in relabel.get("sourceLabels", []):
                    # Prometheus' name for a Service label: non-alphanumerics become "_".
                    prefix = "__meta_kubernetes_service_label_"
                    assert source.startswith(prefix)
                    assert any(
                        re.sub(r"[^a-zA-Z0-9_]", "_", label) == source.removeprefix(prefix)
                        for service in selected
                        for label in service["metadata"]["labels"]
                    ), source
    # The jobs the alerts and dashboards select by (infra/prometheus/prometheus.yml).
    example = yaml.safe_load(PROMETHEUS_CONFIG.read_text(encoding="utf-8"))
    assert jobs == {c["job_name"] for c in example["scrape_configs"]}


def test_sleep_tuning_reaches_the_cpu_workers_as_valid_json(settings_from: Any) -> None:
    docs = rendered("production-values")
    cpu = next(w for w in workloads(docs) if w.role == "cpu")
    settings = settings_from(environment(docs, cpu))
    assert settings.sleep_tuning_file is not None
    volume = next(v for v in cpu.pod["volumes"] if v["name"] == "sleep-tuning")
    config_map = named(docs, "ConfigMap", volume["configMap"]["name"])
    tuning = SleepTuning.model_validate_json(config_map["data"][settings.sleep_tuning_file.name])
    assert tuning.patterns.min_mentions == 4


def test_the_codec_server_starts_from_its_rendered_environment(settings_from: Any) -> None:
    from selfimprint.codec_server import app_from_settings

    docs = rendered("trial-values")
    codec = next(w for w in workloads(docs) if w.role == "codec")
    settings = settings_from(environment(docs, codec))
    assert settings.codec_ui_origin == "http://temporal-ui.temporal.svc.cluster.local:8080"
    assert settings.codec_show_user_text is False
    app_from_settings(settings)  # keys parse, the token is there


def test_temporal_tls_files_come_from_the_mounted_secret(settings_from: Any) -> None:
    docs = rendered("selfhosted-values")
    for workload in workloads(docs):
        settings = settings_from(environment(docs, workload))
        files = [
            settings.temporal_tls_ca_path,
            settings.temporal_tls_cert_path,
            settings.temporal_tls_key_path,
        ]
        if workload.role == "codec":  # it never connects to Temporal
            assert files == [None, None, None]
            continue
        assert settings.temporal_tls_server_name == "temporal.internal.example.com"
        mounts = {m["mountPath"]: m["name"] for m in workload.container["volumeMounts"]}
        volumes = {v["name"]: v for v in workload.pod["volumes"]}
        for path in files:
            assert path is not None, workload.name
            secret = volumes[mounts[str(path.parent)]]["secret"]
            assert secret["secretName"] == "selfimprint-temporal-client"
            assert {"key": path.name, "path": path.name} in secret["items"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--set", "config.neo4j_password=x"], "config.neo4j_password is a secret"),
        (["--set", "api.config.codec_token=x"], "api.config.codec_token is a secret"),
        (["--set", "config.api_port=9000"], "config.api_port is set by the chart"),
        (["--set", "config.temporal_tls_ca_path=/ca"], "temporal_tls_ca_path is set by the chart"),
        (
            ["--set", "temporalTLS.secretName=tls", "--set", "temporalTLS.keyKey="],
            "certKey and keyKey go together",
        ),
        (["--set", "config.NEO4J_URI=x"], "'NEO4J_URI' does not match pattern"),
        (["--set", "config.neo4j_uri=null"], "config.neo4j_uri is required"),
        (["--set", "config.llm_base_url="], "config.llm_base_url is required"),
        (["--set", "config.embedder=bge-m3"], "set config.embedder_model_path"),
        (["--set", "api.config.embedder=bge-m3"], "api.config.embedder is release-wide"),
        (["--set", "codec.enabled=true"], "set codec.uiOrigin"),
        (["--set", "secrets.values.SELFIMPRINT_NEO4J_PASSWRD=x"], "not a key any SelfImprint"),
        (["--set", "workers.gpu.autoscaling.enabled=true"], "set workers.gpu.autoscaling.metrics"),
        (["--set", "api.replica=3"], "additional properties 'replica' not allowed"),
        (["--set", "workers.cpu.role=all"], "value must be one of"),
        (
            ["--set", "workers.extra.enabled=true,workers.extra.role=cpu"],
            "at '/workers/extra': missing properties 'replicas'",
        ),
    ],
)
def test_misconfigurations_fail_at_render_time(args: list[str], message: str) -> None:
    done = helm_template(*args)
    assert done.returncode != 0
    assert message in done.stderr, done.stderr


def _serve(status: int) -> tuple[http.server.HTTPServer, str]:
    class Readyz(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b'{"ready": %s}' % (b"true" if status == 200 else b"false")
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Readyz)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}/readyz"


@pytest.mark.parametrize(("status", "exit_code"), [(200, 0), (503, 1)])
def test_helm_test_pod_passes_only_when_the_api_is_ready(status: int, exit_code: int) -> None:
    (pod,) = of_kind(rendered("defaults"), "Pod")
    command = pod["spec"]["containers"][0]["command"]
    assert command[-1] == "http://selfimprint-api:8000/readyz"
    server, url = _serve(status)
    try:
        done = subprocess.run(
            [sys.executable, *command[1:-1], url], capture_output=True, text=True, timeout=30
        )
    finally:
        server.shutdown()
    assert done.returncode == exit_code, done.stderr
    assert '"ready"' in done.stdout


async def test_readyz_reaches_s3_through_the_default_credential_chain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """production-values reaches S3 through IRSA (no key pair in the Secret); the API's start-up
    probe is /readyz, so its S3 check must sign with boto3's default chain, not look for keys."""
    from selfimprint.adapters.s3 import S3ObjectStore

    signed_with: list[str] = []

    class Bucket(http.server.BaseHTTPRequestHandler):
        def do_HEAD(self) -> None:
            signed_with.append(self.headers.get("Authorization", ""))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Bucket)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    # The chain's environment step, with files and instance metadata out of the way.
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDHELMCHARTTEST")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "chart-test-secret")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    settings = Settings(
        _env_file=None,
        data_dir=tmp_path,  # holds no generated secrets
        s3_endpoint_url=f"http://127.0.0.1:{server.server_port}",
        s3_default_credentials=True,
        temporal_address="127.0.0.1:9",
        neo4j_uri="bolt://127.0.0.1:9",
        llm_base_url="http://127.0.0.1:9/v1",
    )
    try:
        # The store readiness probes (Resources.objects), with the settings the chart renders.
        await asyncio.to_thread(S3ObjectStore.from_settings(settings).check_bucket)
    finally:
        server.shutdown()
    assert signed_with and "Credential=AKIDHELMCHARTTEST/" in signed_with[0]
