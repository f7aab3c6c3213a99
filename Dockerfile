# Karst broker image: a static binary on distroless, run as a non-root user,
# data in a volume. Configure it with KARST_* variables, named as Apache
# Kafka's image names KAFKA_* (KARST_NUM_PARTITIONS=3 -> num.partitions=3),
# or mount a server.properties and pass its path:
#
#   docker build --build-arg VERSION=v0.1.0 --build-arg COMMIT=$(git rev-parse HEAD) -t karst .
#   docker run -p 9092:9092 -v karst-data:/var/lib/karst karst
#   docker run -p 9092:9092 -e KARST_ADVERTISED_LISTENERS=PLAINTEXT://myhost:9092 karst
#   docker run -v $PWD/server.properties:/etc/karst/server.properties karst serve /etc/karst/server.properties
ARG GO_VERSION=1.26.8

FROM golang:${GO_VERSION} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=devel
ARG COMMIT=unknown
ARG DATE=
ARG TARGETOS=linux
ARG TARGETARCH=amd64
# The release script's build: CGO_ENABLED=0, -trimpath, version stamped.
RUN VERSION="$VERSION" COMMIT="$COMMIT" DATE="$DATE" TARGETS="$TARGETOS/$TARGETARCH" DIST=/out \
      scripts/release.sh \
 && mv /out/karst-*-"$TARGETOS"-"$TARGETARCH" /out/karst \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/karst /usr/local/bin/karst
# The data directory belongs to distroless's nonroot user (65532).
COPY --from=build --chown=65532:65532 /out/data /var/lib/karst
USER 65532:65532
VOLUME ["/var/lib/karst"]
# Listen on every interface in the container; clients outside it need
# KARST_ADVERTISED_LISTENERS set to an address they can reach.
ENV KARST_LOG_DIRS=/var/lib/karst \
    KARST_LISTENERS=PLAINTEXT://:9092
EXPOSE 9092
ENTRYPOINT ["/usr/local/bin/karst"]
CMD ["serve"]
