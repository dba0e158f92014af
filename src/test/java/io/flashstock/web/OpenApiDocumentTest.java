package io.flashstock.web;

import static io.flashstock.testsupport.Api.given;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.error.ProblemCode;
import io.flashstock.testsupport.LocalServersResource;
import io.flashstock.testsupport.Tokens;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI document names every problem each operation can answer, with an example body per problem code, and
 * those examples are what the service really answers. Runs in the db-optimistic profile's Quarkus instance.
 */
@QuarkusTest
@TestProfile(StrategyProfiles.DbOptimistic.class)
@WithTestResource(LocalServersResource.class)
class OpenApiDocumentTest {

    private static final String PREFIX = "urn:flashstock:problem:";

    /** The contract (README "API"): per operation, every status it documents and the codes of each problem. */
    private static final Map<String, Map<String, List<String>>> EXPECTED = Map.ofEntries(
            Map.entry("post /items", answers("201", "400", "invalid-request", "409", "item-exists", "413", "payload-too-large",
                    "415", "unsupported-media-type")),
            Map.entry("get /items", answers("200", "400", "invalid-request")),
            Map.entry("get /orders", answers("200", "400", "invalid-request")),
            Map.entry("get /items/{sku}/movements", answers("200", "400", "invalid-request", "404", "item-not-found")),
            Map.entry("get /items/{sku}", answers("200", "400", "invalid-request", "404", "item-not-found")),
            Map.entry("get /items/{sku}/availability", answers("200", "400", "invalid-request", "404", "item-not-found",
                    "412", "version-mismatch")),
            Map.entry("get /items/{sku}/report", answers("200", "400", "invalid-request", "404", "item-not-found")),
            Map.entry("put /items/{sku}/sale", answers("200", "400", "invalid-request", "404", "item-not-found", "412",
                    "version-mismatch", "413", "payload-too-large", "415", "unsupported-media-type", "503",
                    "unavailable,outcome-unknown")),
            Map.entry("put /items/{sku}/stock", answers("200", "400", "invalid-request", "404", "item-not-found", "409",
                    "stock-below-committed", "412", "version-mismatch", "413", "payload-too-large", "415",
                    "unsupported-media-type", "428", "precondition-required", "503", "unavailable,outcome-unknown")),
            Map.entry("post /items/{sku}/retire", answers("200", "400", "invalid-request", "404", "item-not-found",
                    "412", "version-mismatch", "428", "precondition-required", "503", "unavailable,outcome-unknown")),
            Map.entry("post /items/{sku}/restock", answers("200", "400", "invalid-request", "404", "item-not-found", "413",
                    "payload-too-large", "415", "unsupported-media-type", "422", "idempotency-key-reused", "503",
                    "unavailable,outcome-unknown")),
            Map.entry("post /items/{sku}/purchases", answers("201", "400", "invalid-request", "404", "item-not-found",
                    "409", "sold-out,purchase-limit,request-in-progress,sale-not-started,sale-ended,sale-paused,item-retired", "413", "payload-too-large", "415",
                    "unsupported-media-type", "422", "idempotency-key-reused", "429", "too-many-requests", "503",
                    "unavailable,outcome-unknown")),
            Map.entry("get /orders/{orderId}", answers("200", "404", "order-not-found")),
            Map.entry("post /orders/{orderId}/confirm", answers("200", "404", "order-not-found", "409", "order-not-reserved",
                    "503", "unavailable,outcome-unknown")),
            Map.entry("post /orders/{orderId}/cancel", answers("200", "404", "order-not-found", "409", "order-not-reserved",
                    "503", "unavailable,outcome-unknown")),
            Map.entry("post /orders/{orderId}/extend", answers("200", "400", "invalid-request", "404", "order-not-found",
                    "409", "order-not-reserved", "413", "payload-too-large", "415", "unsupported-media-type")),
            Map.entry("post /purchases", answers("201", "400", "invalid-request", "404", "item-not-found",
                    "409", "sold-out,purchase-limit,request-in-progress,sale-not-started,sale-ended,sale-paused,item-retired", "413",
                    "payload-too-large", "415", "unsupported-media-type", "422", "idempotency-key-reused", "429",
                    "too-many-requests", "503", "unavailable,outcome-unknown")),
            Map.entry("get /purchases/{purchaseId}", answers("200", "404", "purchase-not-found")),
            Map.entry("post /purchases/{purchaseId}/confirm", answers("200", "404", "purchase-not-found", "409",
                    "order-not-reserved", "503", "unavailable,outcome-unknown")),
            Map.entry("post /purchases/{purchaseId}/cancel", answers("200", "404", "purchase-not-found", "409",
                    "order-not-reserved", "503", "unavailable,outcome-unknown")));

    /** The document is served on the management port, not with the API. */
    @TestHTTPResource(value = "/openapi", management = true)
    URL openapi;

    @TestHTTPResource(value = "/swagger-ui/", management = true)
    URL swaggerUi;

    private String raw;
    private Map<String, Object> document;

    @BeforeEach
    void fetch() {
        Response response = RestAssured.given().accept(ContentType.JSON).get(openapi + "?format=json");
        response.then().statusCode(200);
        raw = response.asString();
        document = response.jsonPath().getMap("");
    }

    @Test
    void everyOperationListsItsProblemsWithExamples() {
        Map<String, Object> paths = map(document, "paths");
        Set<String> operations = new TreeSet<>();
        paths.forEach((path, item) -> map(paths, path).keySet().stream()
                .filter(method -> Set.of("get", "post", "put", "delete", "patch").contains(method))
                .forEach(method -> operations.add(method + " " + path)));
        assertEquals(new TreeSet<>(EXPECTED.keySet()), operations, "operations in the document");

        EXPECTED.forEach((operation, expected) -> {
            String[] methodAndPath = operation.split(" ");
            Map<String, Object> responses = map(map(map(paths, methodAndPath[1]), methodAndPath[0]), "responses");
            assertEquals(new TreeSet<>(expected.keySet()), new TreeSet<>(responses.keySet()), operation);
            expected.forEach((status, codes) -> {
                if (codes.isEmpty()) {
                    return; // a success answer
                }
                Map<String, Object> response = map(responses, status);
                Map<String, Object> examples = map(map(map(response, "content"), Problem.MEDIA_TYPE), "examples");
                assertEquals(new TreeSet<>(codes), new TreeSet<>(examples.keySet()), operation + " " + status);
                codes.forEach(code -> assertExample(map(examples, code), code, Integer.parseInt(status),
                        operation + " " + status + " " + code));
            });
            assertNotNull(map(map(map(responses, "503"), "headers"), "Retry-After"), operation + " Retry-After");
        });
    }

    @Test
    void createdAnswersAre201WithLocation() {
        for (String path : List.of("/items", "/items/{sku}/purchases")) {
            Map<String, Object> created = map(map(map(map(map(document, "paths"), path), "post"), "responses"),
                    "201");
            assertNotNull(map(map(created, "headers"), "Location"), path);
            assertNotNull(map(map(created, "content"), "application/json"), path);
        }
    }

    @Test
    void everyProblemCodeIsDocumented() {
        for (ProblemCode code : ProblemCode.values()) {
            assertTrue(raw.contains("\"" + PREFIX + code.code() + "\""), code + " in the document");
        }
        Map<String, Object> responses = map(map(document, "components"), "responses");
        assertExample(map(map(map(map(map(responses, "NotFound"), "content"), Problem.MEDIA_TYPE), "examples"),
                "not-found"), "not-found", 404, "components NotFound");
        assertExample(map(map(map(map(map(responses, "MethodNotAllowed"), "content"), Problem.MEDIA_TYPE),
                "examples"), "method-not-allowed"), "method-not-allowed", 405, "components MethodNotAllowed");
        Map<String, Object> problem = map(map(map(document, "components"), "schemas"), "Problem");
        assertEquals(Set.of("type", "title", "status", "detail", "instance", "sku"),
                map(problem, "properties").keySet());
    }

    /** The purchase's input rules, checked by hand ({@code PurchaseInput}), are still described in the document. */
    @Test
    void thePurchaseDocumentsItsInputRules() {
        Map<String, Object> post = map(map(map(document, "paths"), "/items/{sku}/purchases"), "post");
        Map<String, String> patterns = new LinkedHashMap<>();
        for (Object parameter : (List<?>) post.get("parameters")) {
            Map<?, ?> described = (Map<?, ?>) parameter;
            patterns.put((String) described.get("name"), (String) ((Map<?, ?>) described.get("schema")).get("pattern"));
        }
        assertEquals(InputRules.SKU, patterns.get("sku"));
        assertEquals(InputRules.IDEMPOTENCY_KEY, patterns.get("Idempotency-Key"));
        Map<String, Object> body = map(map(map(document, "components"), "schemas"), "PurchaseRequest");
        assertEquals(InputRules.USER_ID, map(map(body, "properties"), "userId").get("pattern"));
        assertEquals(1, ((Number) map(map(body, "properties"), "quantity").get("minimum")).intValue());
        assertEquals(List.of("quantity"), body.get("required"));
    }

    /** The documented examples agree with what the service answers (type, title, status, fixed details). */
    @Test
    void examplesMatchRealAnswers() {
        String sku = "oas-" + System.nanoTime();
        assertSameProblem(given().get("/items/" + sku), "get /items/{sku}", "item-not-found", false);
        assertSameProblem(given().get("/items/bad%20sku"), "get /items/{sku}", "invalid-request", true);
        assertSameProblem(given().get("/items?limit=0"), "get /items", "invalid-request", true);
        assertSameProblem(given().get("/orders?limit=201"), "get /orders", "invalid-request", true);
        assertSameProblem(given().get("/items/" + sku + "/movements?limit=0"), "get /items/{sku}/movements",
                "invalid-request", true);
        assertSameProblem(RestAssured.given().get("/items/" + sku), "get /items/{sku}", "unauthenticated", true);
        assertSameProblem(RestAssured.given().header("Authorization", Tokens.bearer("u-1", "buyer"))
                .contentType(ContentType.JSON).body("{}").post("/items"), "post /items", "forbidden", true);
        assertSameProblem(given().accept(ContentType.TEXT).get("/items/" + sku), "get /items/{sku}", "not-acceptable",
                true);
        assertSameProblem(given().contentType(ContentType.TEXT).body("x").post("/items"), "post /items",
                "unsupported-media-type", true);
        assertSameProblem(given().contentType(ContentType.JSON).body("{\"userId\":\"u-1\",\"quantity\":1}")
                .post("/items/" + sku + "/purchases"), "post /items/{sku}/purchases", "item-not-found", false);
        assertSameProblem(given().post("/orders/0190a1b2-0000-7000-8000-000000000000/confirm"),
                "post /orders/{orderId}/confirm", "order-not-found", false);
        Map<String, Object> responses = map(map(document, "components"), "responses");
        for (var generic : Map.of("NotFound", given().get("/no-such-path"), "MethodNotAllowed",
                given().delete("/items/" + sku)).entrySet()) {
            String code = generic.getKey().equals("NotFound") ? "not-found" : "method-not-allowed";
            Map<String, Object> example = map(map(map(map(map(responses, generic.getKey()), "content"),
                    Problem.MEDIA_TYPE), "examples"), code);
            assertSame(map(example, "value"), generic.getValue().jsonPath(), true, code);
        }
    }

    @Test
    void swaggerUiIsServed() {
        RestAssured.given().get(swaggerUi).then().statusCode(200).contentType(ContentType.HTML);
    }

    /**
     * Neither the description nor the metrics are reachable where the API is served; the metrics count each refusal
     * by its code.
     */
    @Test
    void managementEndpointsAreNotServedWithTheApi() {
        for (String path : List.of("/q/openapi", "/q/metrics", "/q/swagger-ui/")) {
            RestAssured.given().get(path).then().statusCode(404);
        }
        RestAssured.given().get("/items/metrics-probe").then().statusCode(401);
        RestAssured.given().header("Authorization", Tokens.bearer("u-1", "buyer")).contentType(ContentType.JSON)
                .body("{}").post("/items").then().statusCode(403);
        RestAssured.given().get(openapi.toString().replace("/openapi", "/metrics")).then().statusCode(200)
                .body(containsString("flashstock_refusals_total{code=\"unauthenticated\"}"))
                .body(containsString("flashstock_refusals_total{code=\"forbidden\"}"));
    }

    private void assertSameProblem(Response real, String operation, String code, boolean sameDetail) {
        String[] methodAndPath = operation.split(" ");
        ProblemCode problem = codeOf(code);
        Map<String, Object> responses = map(map(map(map(document, "paths"), methodAndPath[1]), methodAndPath[0]),
                "responses");
        Map<String, Object> example = map(map(map(map(map(responses, Integer.toString(problem.status())), "content"),
                Problem.MEDIA_TYPE), "examples"), code);
        assertEquals(problem.status(), real.statusCode(), operation + " " + code + ": " + real.asString());
        assertTrue(real.contentType().startsWith(Problem.MEDIA_TYPE), real.contentType());
        assertSame(map(example, "value"), real.jsonPath(), sameDetail, operation + " " + code);
    }

    private static void assertSame(Map<String, Object> documented, JsonPath real, boolean sameDetail, String what) {
        assertEquals(documented.get("type"), real.getString("type"), what);
        assertEquals(documented.get("title"), real.getString("title"), what);
        assertEquals(documented.get("status"), real.getInt("status"), what);
        if (sameDetail) {
            assertEquals(documented.get("detail"), real.getString("detail"), what);
        }
    }

    private static void assertExample(Map<String, Object> example, String code, int status, String what) {
        ProblemCode problem = codeOf(code);
        assertEquals(status, problem.status(), what);
        Map<String, Object> value = map(example, "value");
        assertEquals(PREFIX + code, value.get("type"), what);
        assertEquals(problem.title(), value.get("title"), what);
        assertEquals(status, value.get("status"), what);
        assertFalse(((String) value.get("detail")).isBlank(), what);
        assertTrue(((String) value.get("instance")).startsWith("/"), what);
    }

    private static ProblemCode codeOf(String code) {
        for (ProblemCode problem : ProblemCode.values()) {
            if (problem.code().equals(code)) {
                return problem;
            }
        }
        throw new AssertionError("no problem code " + code);
    }

    /** Alternating status and comma-separated codes ("" or no codes: a success); 406, 500, 503 everywhere. */
    private static Map<String, List<String>> answers(String... statusesAndCodes) {
        Map<String, List<String>> answers = new LinkedHashMap<>();
        for (int i = 0; i < statusesAndCodes.length; i++) {
            String status = statusesAndCodes[i];
            boolean success = status.startsWith("2");
            answers.put(status, success ? List.of() : List.of(statusesAndCodes[++i].split(",")));
        }
        answers.putIfAbsent("401", List.of("unauthenticated"));
        answers.putIfAbsent("403", List.of("forbidden"));
        answers.putIfAbsent("406", List.of("not-acceptable"));
        answers.putIfAbsent("500", List.of("internal-error"));
        answers.putIfAbsent("503", List.of("unavailable"));
        return answers;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Map<String, Object> parent, String key) {
        Object child = parent.get(key);
        assertNotNull(child, "no '" + key + "' in " + parent.keySet());
        return (Map<String, Object>) child;
    }
}
