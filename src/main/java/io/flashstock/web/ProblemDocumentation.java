package io.flashstock.web;

import static io.flashstock.error.ProblemCode.FORBIDDEN;
import static io.flashstock.error.ProblemCode.IDEMPOTENCY_KEY_REUSED;
import static io.flashstock.error.ProblemCode.INTERNAL_ERROR;
import static io.flashstock.error.ProblemCode.INVALID_REQUEST;
import static io.flashstock.error.ProblemCode.ITEM_EXISTS;
import static io.flashstock.error.ProblemCode.ITEM_NOT_FOUND;
import static io.flashstock.error.ProblemCode.ITEM_RETIRED;
import static io.flashstock.error.ProblemCode.METHOD_NOT_ALLOWED;
import static io.flashstock.error.ProblemCode.NOT_ACCEPTABLE;
import static io.flashstock.error.ProblemCode.NOT_FOUND;
import static io.flashstock.error.ProblemCode.ORDER_NOT_FOUND;
import static io.flashstock.error.ProblemCode.PURCHASE_NOT_FOUND;
import static io.flashstock.error.ProblemCode.ORDER_NOT_RESERVED;
import static io.flashstock.error.ProblemCode.OUTCOME_UNKNOWN;
import static io.flashstock.error.ProblemCode.PAYLOAD_TOO_LARGE;
import static io.flashstock.error.ProblemCode.PRECONDITION_REQUIRED;
import static io.flashstock.error.ProblemCode.PURCHASE_LIMIT;
import static io.flashstock.error.ProblemCode.REQUEST_IN_PROGRESS;
import static io.flashstock.error.ProblemCode.SALE_ENDED;
import static io.flashstock.error.ProblemCode.SALE_NOT_STARTED;
import static io.flashstock.error.ProblemCode.SALE_PAUSED;
import static io.flashstock.error.ProblemCode.SOLD_OUT;
import static io.flashstock.error.ProblemCode.STOCK_BELOW_COMMITTED;
import static io.flashstock.error.ProblemCode.TOO_MANY_REQUESTS;
import static io.flashstock.error.ProblemCode.UNAUTHENTICATED;
import static io.flashstock.error.ProblemCode.UNAVAILABLE;
import static io.flashstock.error.ProblemCode.UNSUPPORTED_MEDIA_TYPE;
import static io.flashstock.error.ProblemCode.VERSION_MISMATCH;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.ProblemCode;
import io.quarkus.smallrye.openapi.OpenApiFilter;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.Components;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.PathItem;
import org.eclipse.microprofile.openapi.models.examples.Example;
import org.eclipse.microprofile.openapi.models.headers.Header;
import org.eclipse.microprofile.openapi.models.media.MediaType;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.media.Schema.SchemaType;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;
import org.eclipse.microprofile.openapi.models.responses.APIResponses;

/**
 * Puts the problem answers of the REST contract into the OpenAPI document ({@code /q/openapi}, Swagger UI): for
 * each operation, every {@code application/problem+json} answer it can give, with one example body per problem
 * code, built from {@link ProblemCode} and the running configuration (type prefix, {@code Retry-After}, limits).
 *
 * <p>{@link #PROBLEMS} is the one table to keep in step with the resources, {@link ProblemMapper} and the
 * services. Runs once at startup ({@link OpenApiFilter.RunStage#RUNTIME_STARTUP}), so the examples show the
 * running configuration ({@code flashstock.problem-type-prefix}, {@code retry-after-seconds}, limits).
 */
@OpenApiFilter(stages = OpenApiFilter.RunStage.RUNTIME_STARTUP)
@Singleton
public class ProblemDocumentation implements OASFilter {

    /** The components name of the problem schema. */
    static final String SCHEMA = "Problem";

    private static final String SKU = "phone-x";
    private static final String ORDER_ID = "019a3c5e-7b1d-7f2a-9c4e-5d6f7a8b9c0d";
    private static final java.time.Instant SALE_START = java.time.Instant.parse("2026-12-01T12:00:00Z");

    /**
     * The problems each operation can answer (method and path as in the document), in addition to
     * {@link #EVERY_OPERATION}. 413 and 415 only where a body is read; {@code request-in-progress} comes only from
     * redis-lua write-through, but the document describes the contract, not one strategy.
     */
    static final Map<String, List<ProblemCode>> PROBLEMS = Map.ofEntries(
            Map.entry("POST /items", List.of(INVALID_REQUEST, ITEM_EXISTS, PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE)),
            Map.entry("GET /items", List.of(INVALID_REQUEST)),
            Map.entry("GET /orders", List.of(INVALID_REQUEST)),
            Map.entry("GET /items/{sku}/movements", List.of(INVALID_REQUEST, ITEM_NOT_FOUND)),
            Map.entry("GET /items/{sku}", List.of(INVALID_REQUEST, ITEM_NOT_FOUND)),
            Map.entry("GET /items/{sku}/availability", List.of(INVALID_REQUEST, ITEM_NOT_FOUND, VERSION_MISMATCH)),
            Map.entry("GET /items/{sku}/report", List.of(INVALID_REQUEST, ITEM_NOT_FOUND)),
            Map.entry("PUT /items/{sku}/sale",
                    List.of(INVALID_REQUEST, ITEM_NOT_FOUND, VERSION_MISMATCH, PAYLOAD_TOO_LARGE,
                            UNSUPPORTED_MEDIA_TYPE, OUTCOME_UNKNOWN)),
            Map.entry("PUT /items/{sku}/stock",
                    List.of(INVALID_REQUEST, ITEM_NOT_FOUND, STOCK_BELOW_COMMITTED, VERSION_MISMATCH,
                            PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE, PRECONDITION_REQUIRED, OUTCOME_UNKNOWN)),
            Map.entry("POST /items/{sku}/retire",
                    List.of(INVALID_REQUEST, ITEM_NOT_FOUND, VERSION_MISMATCH, PRECONDITION_REQUIRED,
                            OUTCOME_UNKNOWN)),
            Map.entry("POST /items/{sku}/restock",
                    List.of(INVALID_REQUEST, ITEM_NOT_FOUND, PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE,
                            IDEMPOTENCY_KEY_REUSED, OUTCOME_UNKNOWN)),
            Map.entry("POST /items/{sku}/purchases",
                    List.of(INVALID_REQUEST, ITEM_NOT_FOUND, SOLD_OUT, PURCHASE_LIMIT, REQUEST_IN_PROGRESS,
                            SALE_NOT_STARTED, SALE_ENDED, SALE_PAUSED, ITEM_RETIRED, PAYLOAD_TOO_LARGE,
                            UNSUPPORTED_MEDIA_TYPE,
                            IDEMPOTENCY_KEY_REUSED, TOO_MANY_REQUESTS, OUTCOME_UNKNOWN)),
            Map.entry("POST /purchases",
                    List.of(INVALID_REQUEST, ITEM_NOT_FOUND, SOLD_OUT, PURCHASE_LIMIT, REQUEST_IN_PROGRESS,
                            SALE_NOT_STARTED, SALE_ENDED, SALE_PAUSED, ITEM_RETIRED, PAYLOAD_TOO_LARGE,
                            UNSUPPORTED_MEDIA_TYPE,
                            IDEMPOTENCY_KEY_REUSED, TOO_MANY_REQUESTS, OUTCOME_UNKNOWN)),
            Map.entry("GET /purchases/{purchaseId}", List.of(PURCHASE_NOT_FOUND)),
            Map.entry("POST /purchases/{purchaseId}/confirm",
                    List.of(PURCHASE_NOT_FOUND, ORDER_NOT_RESERVED, OUTCOME_UNKNOWN)),
            Map.entry("POST /purchases/{purchaseId}/cancel",
                    List.of(PURCHASE_NOT_FOUND, ORDER_NOT_RESERVED, OUTCOME_UNKNOWN)),
            Map.entry("GET /orders/{orderId}", List.of(ORDER_NOT_FOUND)),
            Map.entry("POST /orders/{orderId}/confirm", List.of(ORDER_NOT_FOUND, ORDER_NOT_RESERVED, OUTCOME_UNKNOWN)),
            Map.entry("POST /orders/{orderId}/cancel", List.of(ORDER_NOT_FOUND, ORDER_NOT_RESERVED, OUTCOME_UNKNOWN)),
            Map.entry("POST /orders/{orderId}/extend", List.of(INVALID_REQUEST, ORDER_NOT_FOUND, ORDER_NOT_RESERVED,
                    PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE)));

    /**
     * What any operation can answer: no valid bearer token (401) or a role that may not call it (403), an Accept
     * header without JSON (406), a failure of the service (500), and a store that cannot be reached or a decision
     * not reached in time (503 with Retry-After).
     */
    static final List<ProblemCode> EVERY_OPERATION = List.of(UNAUTHENTICATED, FORBIDDEN, NOT_ACCEPTABLE,
            INTERNAL_ERROR, UNAVAILABLE);

    /**
     * Answers not tied to one operation (a path that names nothing, a method a path does not have): reusable
     * responses under {@code components.responses}, with the path of an example request.
     */
    static final Map<ProblemCode, String> ANY_PATH = Map.of(NOT_FOUND, "/no-such-path",
            METHOD_NOT_ALLOWED, "/items/" + SKU);

    /** The listings: their invalid requests are about the query ({@code limit}, the filters, the cursor). */
    static final java.util.Set<String> LISTINGS = java.util.Set.of("GET /items", "GET /orders", "GET /items/{sku}/movements");

    /** Operations answering 201 Created (the generated document says 200): the schema of the body. */
    static final Map<String, String> CREATED = Map.of("POST /items", "ItemView", "POST /items/{sku}/purchases",
            "OrderView", "POST /purchases", "PurchaseView");

    private final String typePrefix;
    private final int retryAfterSeconds;
    private final int maxQuantity;
    private final long maxBodySize;

    ProblemDocumentation(FlashstockConfig config) {
        this.typePrefix = config.problemTypePrefix();
        this.retryAfterSeconds = config.retryAfterSeconds();
        this.maxQuantity = config.maxQuantityPerRequest();
        this.maxBodySize = config.maxBodySize().asLongValue();
    }

    @Override
    public void filterOpenAPI(OpenAPI openAPI) {
        if (openAPI.getComponents() == null) {
            openAPI.setComponents(OASFactory.createComponents());
        }
        Components components = openAPI.getComponents();
        components.addSchema(SCHEMA, problemSchema());
        ANY_PATH.forEach((code, instance) -> components.addResponse(responseName(code),
                problemResponse(List.of(code), null, instance)));
        if (openAPI.getPaths() == null || openAPI.getPaths().getPathItems() == null) {
            return;
        }
        openAPI.getPaths().getPathItems().forEach((path, item) -> describe(path, item));
    }

    private void describe(String path, PathItem item) {
        if (item.getOperations() == null) {
            return;
        }
        item.getOperations().forEach((method, operation) -> {
            String key = method.name() + " " + path;
            List<ProblemCode> problems = new ArrayList<>(PROBLEMS.getOrDefault(key, List.of()));
            problems.addAll(EVERY_OPERATION);
            if (operation.getResponses() == null) {
                operation.setResponses(OASFactory.createAPIResponses());
            }
            APIResponses responses = operation.getResponses();
            if (CREATED.containsKey(key)) {
                created(responses, CREATED.get(key), key.endsWith("/purchases"));
            }
            String instance = path.replace("{sku}", SKU).replace("{orderId}", ORDER_ID)
                    .replace("{purchaseId}", ORDER_ID);
            problems.stream()
                    .collect(Collectors.groupingBy(ProblemCode::status, LinkedHashMap::new, Collectors.toList()))
                    .forEach((status, codes) -> responses.addAPIResponse(Integer.toString(status),
                            problemResponse(codes, key, instance)));
            responses.setAPIResponses(new TreeMap<>(responses.getAPIResponses())); // by status
        });
    }

    /** "MethodNotAllowed" for method-not-allowed. */
    static String responseName(ProblemCode code) {
        return Arrays.stream(code.code().split("-"))
                .map(word -> Character.toUpperCase(word.charAt(0)) + word.substring(1))
                .collect(Collectors.joining());
    }

    /** An answer with status {@code codes' status} of {@code operation} (null: any): one example per code. */
    private APIResponse problemResponse(List<ProblemCode> codes, String operation, String instance) {
        MediaType media = OASFactory.createMediaType().schema(OASFactory.createSchema().ref(SCHEMA));
        for (ProblemCode code : codes) {
            media.addExample(code.code(), example(code, operation, instance));
        }
        APIResponse response = OASFactory.createAPIResponse()
                .description(codes.stream().map(c -> "`" + c.code() + "` (" + c.title() + ")")
                        .collect(Collectors.joining(", ")))
                .content(OASFactory.createContent().addMediaType(Problem.MEDIA_TYPE, media));
        if (codes.get(0).status() == 401) {
            response.addHeader("WWW-Authenticate", header("`Bearer` (RFC 6750), with `error=\"invalid_token\"` "
                    + "when a token was sent but refused.", SchemaType.STRING));
        }
        if (codes.get(0).status() == 503) {
            response.addHeader("Retry-After", OASFactory.createHeader()
                    .description("Seconds to wait before trying again (flashstock.retry-after-seconds).")
                    .schema(OASFactory.createSchema().addType(SchemaType.INTEGER).minimum(BigDecimal.ZERO))
                    .example(retryAfterSeconds));
        }
        return response;
    }

    private Example example(ProblemCode code, String operation, String instance) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", typePrefix + code.code());
        body.put("title", code.title());
        body.put("status", code.status());
        body.put("detail", detail(code, operation, instance));
        body.put("instance", instance);
        return OASFactory.createExample().summary(code.title()).value(body);
    }

    /** A detail as the service writes it for {@code code} (see the services and {@link ProblemMapper}). */
    private String detail(ProblemCode code, String operation, String instance) {
        return switch (code) {
            case INVALID_REQUEST -> LISTINGS.contains(operation) ? "limit: " + InputRules.LIST_LIMIT_MESSAGE
                    : instance.endsWith("/purchases")
                    ? "quantity: must be at most " + maxQuantity + " per purchase"
                    : instance.endsWith("/extend") ? "seconds: must be greater than or equal to 1"
                    : instance.endsWith("/stock") ? "stock: must be greater than or equal to 0"
                    : "sku: " + InputRules.SKU_MESSAGE;
            case NOT_FOUND, METHOD_NOT_ALLOWED, NOT_ACCEPTABLE, UNSUPPORTED_MEDIA_TYPE ->
                ProblemMapper.statusDetail(code.status());
            case UNAUTHENTICATED -> ProblemMapper.UNAUTHENTICATED;
            case FORBIDDEN -> ProblemMapper.FORBIDDEN;
            case ITEM_NOT_FOUND -> FlashstockException.itemNotFound(SKU).getMessage();
            case ORDER_NOT_FOUND -> FlashstockException.orderNotFound(ORDER_ID).getMessage();
            case PURCHASE_NOT_FOUND -> FlashstockException.purchaseNotFound(ORDER_ID).getMessage();
            case ITEM_EXISTS -> FlashstockException.itemExists(SKU).getMessage();
            case SOLD_OUT -> FlashstockException.soldOut(SKU, 1).getMessage();
            case PURCHASE_LIMIT -> FlashstockException.purchaseLimit(SKU, 2).getMessage();
            case ORDER_NOT_RESERVED -> instance.endsWith("/cancel")
                    ? FlashstockException.orderNotReserved(ORDER_ID, "CONFIRMED", "cancelled").getMessage()
                    : FlashstockException.orderNotReserved(ORDER_ID, "CANCELLED",
                            instance.endsWith("/extend") ? "extended" : "confirmed").getMessage();
            case REQUEST_IN_PROGRESS -> FlashstockException.requestInProgress().getMessage();
            case PAYLOAD_TOO_LARGE -> BodyLimit.tooLarge(maxBodySize);
            case IDEMPOTENCY_KEY_REUSED -> FlashstockException.keyReused().getMessage();
            case SALE_NOT_STARTED -> FlashstockException.saleNotStarted(SKU, SALE_START, 60).getMessage();
            case SALE_ENDED -> FlashstockException.saleEnded(SKU, SALE_START.plusSeconds(600)).getMessage();
            case SALE_PAUSED -> FlashstockException.salePaused(SKU).getMessage();
            case TOO_MANY_REQUESTS -> FlashstockException.tooManyRequests("this user", 1).getMessage();
            case INTERNAL_ERROR -> ProblemMapper.FAILED;
            case UNAVAILABLE -> ProblemMapper.DATABASE_UNAVAILABLE;
            case OUTCOME_UNKNOWN -> FlashstockException.outcomeUnknown(null).getMessage();
            case ITEM_RETIRED -> FlashstockException.itemRetired(SKU).getMessage();
            case PRECONDITION_REQUIRED -> FlashstockException.preconditionRequired(SKU).getMessage();
            case VERSION_MISMATCH -> FlashstockException.versionMismatch(SKU, 7).getMessage();
            case STOCK_BELOW_COMMITTED -> FlashstockException.stockBelowCommitted(SKU, 10, 12).getMessage();
        };
    }

    /** Replaces the generated 200 of an operation that answers 201 Created with a Location. */
    private static void created(APIResponses responses, String schema, boolean idempotent) {
        responses.removeAPIResponse("200");
        APIResponse created = OASFactory.createAPIResponse().description("Created")
                .content(OASFactory.createContent().addMediaType(jakarta.ws.rs.core.MediaType.APPLICATION_JSON,
                        OASFactory.createMediaType().schema(OASFactory.createSchema().ref(schema))))
                .addHeader("Location", header("Where the new resource is.", SchemaType.STRING));
        if (idempotent) {
            created.description("Created; or, for a repeated Idempotency-Key with the same body, the first order "
                    + "again (nothing deducted)")
                    .addHeader("Idempotent-Replayed", header("`true` when this answer repeats the first order.",
                            SchemaType.STRING));
        }
        responses.addAPIResponse("201", created);
    }

    private static Header header(String description, SchemaType type) {
        return OASFactory.createHeader().description(description).schema(OASFactory.createSchema().addType(type));
    }

    private static Schema problemSchema() {
        return OASFactory.createSchema().addType(SchemaType.OBJECT)
                .description("An RFC 9457 problem detail. `type` ends with the problem code.")
                .addProperty("type", OASFactory.createSchema().addType(SchemaType.STRING).format("uri")
                        .description("Identifies the problem: the configured prefix and the problem code."))
                .addProperty("title", OASFactory.createSchema().addType(SchemaType.STRING)
                        .description("Short summary of the problem type."))
                .addProperty("status", OASFactory.createSchema().addType(SchemaType.INTEGER).format("int32")
                        .description("The HTTP status code."))
                .addProperty("detail", OASFactory.createSchema().addType(SchemaType.STRING)
                        .description("What went wrong with this request, for the client."))
                .addProperty("instance", OASFactory.createSchema().addType(SchemaType.STRING)
                        .format("uri-reference").description("The request path."))
                .addProperty("sku", OASFactory.createSchema().addType(SchemaType.STRING)
                        .description("For a refused multi-item purchase: the sku of the line that was refused."))
                .required(List.of("type", "title", "status", "detail"));
    }
}
