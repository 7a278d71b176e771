# podscale controller-manager: build the wheel, install it in a slim Python image, run as
# a non-root user. deploy/podscale.yaml runs this image (docs/run-on-your-cluster.md).
#   docker build -t REGISTRY/podscale:VERSION .
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY src ./src
RUN pip install --no-cache-dir build && python -m build --wheel --outdir /dist

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
COPY --from=build /dist/ /tmp/dist/
RUN pip install --no-cache-dir /tmp/dist/*.whl && rm -rf /tmp/dist \
    && useradd --uid 65532 --user-group --no-create-home --shell /usr/sbin/nologin podscale
# Numeric, so that the pod's runAsNonRoot can check it.
USER 65532:65532
ENTRYPOINT ["podscale", "controller-manager"]
