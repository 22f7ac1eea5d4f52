package dev.quota.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A plain HTTP/1.1 client for the demo's API, every call bounded by a timeout. */
final class Http {

    static final Duration TIMEOUT = Duration.ofSeconds(20);
    static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(TIMEOUT) // 300 connections at once on a busy 2-core machine: a bound, not a wait
            .build();
    private static final ObjectMapper JSON = new ObjectMapper();

    private Http() {
    }

    /** GET with header pairs {@code name, value, ...}. */
    static HttpResponse<String> get(URI uri, String... headers) {
        return send(request(uri, headers).GET());
    }

    /** POST of a JSON body with header pairs {@code name, value, ...}. */
    static HttpResponse<String> postJson(URI uri, String body, String... headers) {
        return send(request(uri, headers).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    static HttpRequest.Builder request(URI uri, String... headers) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri).timeout(TIMEOUT);
        if (headers.length > 0) {
            builder.headers(headers);
        }
        return builder;
    }

    static HttpResponse<String> send(HttpRequest.Builder request) {
        return send(CLIENT, request);
    }

    /** Sends with {@code client}, which may speak another HTTP version. */
    static HttpResponse<String> send(HttpClient client, HttpRequest.Builder request) {
        try {
            return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The body parsed as JSON. */
    static JsonNode json(HttpResponse<String> response) {
        try {
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException("not JSON: " + response.body(), e);
        }
    }

    /** The value of a response header, or "" when absent. */
    static String header(HttpResponse<String> response, String name) {
        return response.headers().firstValue(name).orElse("");
    }
}
