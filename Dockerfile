# inferx: the dashboard served by gunicorn (gthread). Build: docker build -t inferx .

# Stage 1 only lists the runtime dependencies from pyproject.toml (tomllib is stdlib on 3.11). The pip layer
# below is keyed on that list alone, so edits to pytest or ruff settings in pyproject.toml keep it cached.
FROM python:3.11-slim AS requirements
WORKDIR /src
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > requirements.txt

FROM python:3.11-slim

# Defaults of every variable the app reads (README "Run in Docker"). BLAS threads stay at 1 because
# workers x threads already use the cores.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    OMP_NUM_THREADS=1 \
    OPENBLAS_NUM_THREADS=1 \
    MKL_NUM_THREADS=1 \
    HOST=0.0.0.0 \
    PORT=8050 \
    INFERX_PREFIX=/ \
    INFERX_FRAME_ANCESTORS="'self'" \
    INFERX_REFERRER_POLICY=same-origin \
    INFERX_WORKERS=2 \
    INFERX_THREADS=4 \
    INFERX_TIMEOUT=60 \
    INFERX_MAX_UPLOAD_MB=20

WORKDIR /app

# Runtime dependencies only (never the test extras), in their own layer so code edits rebuild in seconds.
COPY --from=requirements /src/requirements.txt /tmp/requirements.txt
RUN python -m pip install --no-cache-dir --requirement /tmp/requirements.txt \
    && rm /tmp/requirements.txt \
    && groupadd --gid 10001 app \
    && useradd --uid 10001 --gid app --no-create-home --shell /usr/sbin/nologin app

COPY . .

# Code stays root-owned and read-only to the user that serves it
USER 10001:10001
EXPOSE 8050

# slim has no curl; deploy.py runs as a plain script so the probe does not import the engine
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "inferx/deploy.py", "healthcheck"]

CMD ["gunicorn", "--config", "gunicorn.conf.py", "app:server"]
