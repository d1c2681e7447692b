package io.shardgate.router.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardgate.admin.store.ConfigDocuments;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.OptionalLong;

/** A router's HTTP control endpoint ({@code /api/config}, {@code /api/status}). */
final class HttpClusterEndpoint implements ClusterEndpoint {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI base;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    HttpClusterEndpoint(URI base) {
        this.base = base;
    }

    @Override
    public Answer config() throws Exception {
        return send(HttpRequest.newBuilder(base.resolve("/api/config")).GET());
    }

    @Override
    public Answer status() throws Exception {
        return send(HttpRequest.newBuilder(base.resolve("/api/status")).GET());
    }

    @Override
    public Answer publish(OptionalLong basedOn, ConfigDocuments documents) throws Exception {
        ObjectNode body = JSON.createObjectNode();
        basedOn.ifPresent(n -> body.put("basedOn", n));
        ObjectNode docs = body.putObject("documents");
        documents.sections().forEach(docs::put);
        return send(HttpRequest.newBuilder(base.resolve("/api/config"))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))));
    }

    @Override
    public Answer moves(String method, String path, JsonNode body) throws Exception {
        return send(HttpRequest.newBuilder(base.resolve(path))
                .header("Content-Type", "application/json")
                .method(
                        method,
                        body == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))));
    }

    private Answer send(HttpRequest.Builder request) throws Exception {
        HttpResponse<String> response;
        try {
            response = http.send(request.timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            // a refused connection comes as a ConnectException without a message
            throw new ClusterUnreachableException("cannot reach a router's HTTP API at " + base + " ("
                    + ClusterUnreachableException.reason(e) + "): is a router running there with this http_port?"
                    + " Give its address with --url, or go to ZooKeeper directly with --zookeeper HOST:PORT");
        }
        JsonNode body;
        try {
            body = JSON.readTree(response.body());
        } catch (Exception e) {
            body = JSON.createObjectNode().put("error", response.body().strip());
        }
        return new Answer(response.statusCode(), body);
    }
}
