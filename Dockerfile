# Shardgate router image: the distribution tarball (./mvnw package) on a JRE 17.
#   docker build -t shardgate:local .
#   docker run -p 6033:6033 -p 6080:6080 -v $PWD/shardgate.yaml:/etc/shardgate/shardgate.yaml:ro shardgate:local
# The image's default config (deploy/image/shardgate.yaml) binds 0.0.0.0, as a config mounted over it
# must (server.bind) to be reachable from outside the container; the router's own default is 127.0.0.1.
# Base images are pinned by tag only: TODO(#16) pin them by digest, see deploy/compose/README.md.

FROM eclipse-temurin:17-jdk AS build
WORKDIR /src
COPY . .
# Tests run in CI (./mvnw verify), not in the image build.
RUN ./mvnw -B -ntp -pl router-core -am package -DskipTests -Dspotless.check.skip=true \
 && mkdir /dist \
 && tar xzf router-core/target/shardgate-*.tar.gz -C /dist --strip-components=1

FROM eclipse-temurin:17-jre
# curl: the HEALTHCHECK below
RUN apt-get update \
 && apt-get install -y --no-install-recommends curl \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 shardgate \
 && useradd --system --uid 10001 --gid shardgate --home-dir /var/lib/shardgate --no-create-home shardgate \
 && mkdir -p /var/lib/shardgate /etc/shardgate \
 && chown shardgate:shardgate /var/lib/shardgate
COPY --from=build /dist /opt/shardgate
COPY deploy/image/shardgate.yaml /etc/shardgate/shardgate.yaml
# numeric, so runtimes that require a non-root uid (Kubernetes runAsNonRoot) can verify it
USER 10001:10001
WORKDIR /var/lib/shardgate
# server.data_dir of the default config: generated TLS and RSA keys, the embedded ZooKeeper's data
VOLUME ["/var/lib/shardgate"]
# no JAVA_OPTS: bin/shardgate sizes heap and direct memory from the configuration; set JAVA_OPTS or
# SHARDGATE_HEAP to override (docs/configuration.md, "Memory footprint")
EXPOSE 6033 6032 6080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["curl", "-fsS", "-o", "/dev/null", "http://127.0.0.1:6080/health"]
ENTRYPOINT ["/opt/shardgate/bin/shardgate"]
CMD ["run", "--config", "/etc/shardgate/shardgate.yaml"]
