package io.flashstock.testsupport;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

import io.restassured.RestAssured;

/**
 * Many requests at once against the running service, all released together by a start gate. Uses the JDK
 * client (one connection per in-flight request) so that the load is really concurrent.
 */
public final class Http {

    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private Http() {
    }

    /** A response, and how long it took from sending the request to its complete body. */
    public record Reply(int status, String body, String contentType, long millis, java.net.http.HttpHeaders headers) {

        /** The first value of a response header, or null. */
        public String header(String name) {
            return headers == null ? null : headers.firstValue(name).orElse(null);
        }
    }

    public static URI uri(String path) {
        return URI.create(RestAssured.baseURI + ":" + Instances.nextPort() + path);
    }

    /** A JSON POST with the staff token ({@link Tokens#staff()}). */
    public static HttpRequest.Builder post(String path, String json) {
        return post(uri(path), json);
    }

    /** A JSON POST to an absolute URI (a service other than the test's default one), with the staff token. */
    public static HttpRequest.Builder post(URI uri, String json) {
        return post(uri, json, Tokens.staff());
    }

    /** A JSON POST with this Authorization header (null: none). */
    public static HttpRequest.Builder post(String path, String json, String authorization) {
        return post(uri(path), json, authorization);
    }

    private static HttpRequest.Builder post(URI uri, String json, String authorization) {
        return request("POST", uri, json, authorization);
    }

    /** A GET with this Authorization header (null: none). */
    public static HttpRequest get(String path, String authorization) {
        return request("GET", uri(path), null, authorization).build();
    }

    /** Any request to the service: a JSON body (null: none) and this Authorization header (null: none). */
    public static HttpRequest request(String method, String path, String json, String authorization) {
        return request(method, uri(path), json, authorization).build();
    }

    private static HttpRequest.Builder request(String method, URI uri, String json, String authorization) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30));
        if (json != null) {
            request.header("Content-Type", "application/json");
        }
        request.method(method, json == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(json));
        return authorized(request, authorization);
    }

    private static HttpRequest.Builder authorized(HttpRequest.Builder request, String authorization) {
        return authorization == null ? request : request.header("Authorization", authorization);
    }

    /** Status of a {@link Reply} that never came: the connection was refused or broke, or the client timed out. */
    public static final int NO_ANSWER = 0;

    /** Sends one request; a connection failure or timeout is a reply with status {@link #NO_ANSWER}. */
    public static Reply send(HttpRequest request) {
        long start = System.nanoTime();
        try {
            HttpResponse<String> response = CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
            return new Reply(response.statusCode(), response.body(),
                    response.headers().firstValue("Content-Type").orElse(""),
                    (System.nanoTime() - start) / 1_000_000, response.headers());
        } catch (java.io.IOException e) {
            return new Reply(NO_ANSWER, e.toString(), "", (System.nanoTime() - start) / 1_000_000, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Sends {@code count} requests from {@code threads} threads, started together; replies in index order. */
    public static List<Reply> concurrently(int count, int threads, IntFunction<HttpRequest> request) {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch gate = new CountDownLatch(1);
        try {
            List<Future<Reply>> futures = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                int index = i;
                futures.add(pool.submit(() -> {
                    gate.await();
                    return send(request.apply(index));
                }));
            }
            gate.countDown();
            List<Reply> replies = new ArrayList<>();
            for (Future<Reply> future : futures) {
                replies.add(future.get());
            }
            return replies;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        } finally {
            pool.shutdownNow();
        }
    }
}
