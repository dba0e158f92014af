package io.flashstock.web;

import java.util.Comparator;
import java.util.stream.Collectors;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.flashstock.config.FlashstockConfig;
import io.flashstock.db.DbErrors;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.ProblemCode;
import io.flashstock.support.Causes;
import io.flashstock.support.MetersByTag;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransactionException;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;
import jakarta.inject.Inject;
import jakarta.persistence.PersistenceException;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.ConstraintViolationException;
import jakarta.validation.Path;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * The one place where failures become {@code application/problem+json} (RFC 9457). Each mapper handles one
 * family: domain outcomes, bean validation, JSON reading, JAX-RS status exceptions (unknown path, 405, 415, ...),
 * and database failures. Details are written for clients; causes go to the log only, so answers never carry
 * stack traces, SQL, class or host names.
 */
public class ProblemMapper {

    private static final Logger LOG = Logger.getLogger(ProblemMapper.class);
    /** The detail of a request that failed for a reason the client cannot change (500). */
    static final String FAILED = "The request failed; nothing was changed.";
    /** The detail when MySQL cannot be reached (503). */
    static final String DATABASE_UNAVAILABLE = "The inventory database cannot be reached; try again.";
    static final String DATABASE_BUSY = "The item is busy with other changes; nothing was changed, try again.";

    /** The detail of a 401: the same for every way a token can be wrong, so it tells an attacker nothing. */
    static final String UNAUTHENTICATED = "A valid bearer token is required.";
    /** The detail of a 403 from a role check. */
    static final String FORBIDDEN = "The token's roles do not allow this call.";

    private final String typePrefix;
    private final String retryAfter;
    /** Counts every 4xx answer by its code (flashstock.refusals): 401s, 403s, 429s, sale windows, sold-outs... */
    private final MetersByTag<Counter> refusals;

    @Inject
    ProblemMapper(FlashstockConfig config, MeterRegistry registry) {
        this(config.problemTypePrefix(), config.retryAfterSeconds(), registry);
    }

    ProblemMapper(String typePrefix, int retryAfterSeconds, MeterRegistry registry) {
        this.typePrefix = typePrefix;
        this.retryAfter = Integer.toString(retryAfterSeconds);
        this.refusals = new MetersByTag<>(code -> registry.counter("flashstock.refusals", "code", code));
    }

    /**
     * No token, or a token that failed verification (signature, {@code alg}, issuer, expiry, required claims):
     * 401 with {@code WWW-Authenticate: Bearer}. Which check failed goes to the debug log only.
     */
    @ServerExceptionMapper({ AuthenticationFailedException.class, UnauthorizedException.class })
    public Response unauthenticated(RuntimeException e, UriInfo uri) {
        LOG.debugf("Unauthenticated request to %s: %s", uri == null ? "?" : uri.getPath(), e.getMessage());
        boolean tokenRejected = e instanceof AuthenticationFailedException;
        return Response.fromResponse(problem(ProblemCode.UNAUTHENTICATED, UNAUTHENTICATED, uri))
                .header("WWW-Authenticate", tokenRejected ? "Bearer error=\"invalid_token\"" : "Bearer")
                .build();
    }

    /** A valid token whose roles do not allow the call. */
    @ServerExceptionMapper
    public Response forbidden(ForbiddenException e, UriInfo uri) {
        return problem(ProblemCode.FORBIDDEN, FORBIDDEN, uri);
    }

    @ServerExceptionMapper
    public Response domain(FlashstockException e, UriInfo uri) {
        if (e.getCause() != null) {
            LOG.debugf(e.getCause(), "%s: %s", e.code().code(), e.getMessage());
        }
        return problem(e.code(), e.code().status(), e.getMessage(), uri,
                e.retryAfterSeconds() > 0 ? Long.toString(e.retryAfterSeconds()) : null, e.sku());
    }

    @ServerExceptionMapper
    public Response validation(ConstraintViolationException e, UriInfo uri) {
        String detail = e.getConstraintViolations().stream()
                .sorted(Comparator.comparing(v -> v.getPropertyPath().toString()))
                .map(v -> describe(v) + ": " + v.getMessage())
                .collect(Collectors.joining("; "));
        return problem(ProblemCode.INVALID_REQUEST, detail, uri);
    }

    @ServerExceptionMapper
    public Response json(JacksonException e, UriInfo uri) {
        return problem(ProblemCode.INVALID_REQUEST, describe(e), uri);
    }

    /** Declared separately: Quarkus ships its own mapper for this subtype, and the closest type wins. */
    @ServerExceptionMapper
    public Response jsonMismatch(MismatchedInputException e, UriInfo uri) {
        return json(e, uri);
    }

    @ServerExceptionMapper
    public Response http(WebApplicationException e, UriInfo uri) {
        int status = e.getResponse().getStatus();
        JacksonException unreadable = Causes.find(e.getCause(), JacksonException.class).orElse(null);
        if (status == 400 && unreadable != null) {
            return json(unreadable, uri);
        }
        ProblemCode code = ProblemCode.forStatus(status);
        if (code == ProblemCode.INTERNAL_ERROR) {
            LOG.error("Request failed", e);
        }
        return problem(code, status, statusDetail(status), uri);
    }

    /** The detail of a framework-level answer (unknown path, wrong method, 406, 413, 415, unreadable request). */
    static String statusDetail(int status) {
        return switch (status) {
            case 404 -> "There is nothing at this path.";
            case 405 -> "This method is not allowed here.";
            case 406 -> "Only application/json answers are available.";
            case 413 -> "The request body is larger than the limit.";
            case 415 -> "The request body must be application/json.";
            default -> {
                ProblemCode code = ProblemCode.forStatus(status);
                yield code == ProblemCode.INVALID_REQUEST ? "The request could not be read." : code.title() + ".";
            }
        };
    }

    @ServerExceptionMapper
    public Response database(PersistenceException e, UriInfo uri) {
        return storeFailure(e, uri);
    }

    /**
     * A transaction that failed outside a statement, on its commit or rollback (Narayana's failure wrapped by
     * {@code QuarkusTransaction}): judged by what it carries, as a statement's failure is. A read's commit on a
     * connection cut under it is 503 {@code unavailable}, not a 500.
     */
    @ServerExceptionMapper
    public Response transaction(QuarkusTransactionException e, UriInfo uri) {
        return storeFailure(e, uri);
    }

    private Response storeFailure(RuntimeException e, UriInfo uri) {
        if (DbErrors.isUnavailable(e)) {
            LOG.warnf("Database unavailable: %s", e.toString());
            return problem(ProblemCode.UNAVAILABLE, DATABASE_UNAVAILABLE, uri);
        }
        if (DbErrors.isConflict(e)) {
            // A lock wait, deadlock or version conflict that no retry took care of: the transaction rolled back.
            LOG.warnf("Database conflict not retried: %s", e.toString());
            return problem(ProblemCode.UNAVAILABLE, DATABASE_BUSY, uri);
        }
        LOG.error("Database failure", e);
        return problem(ProblemCode.INTERNAL_ERROR, FAILED, uri);
    }

    private Response problem(ProblemCode code, String detail, UriInfo uri) {
        return problem(code, code.status(), detail, uri);
    }

    private Response problem(ProblemCode code, int status, String detail, UriInfo uri) {
        return problem(code, status, detail, uri, null, null);
    }

    /** {@code retryAfterSeconds}: the answer's own Retry-After; null: the configured one where the status is 503. */
    private Response problem(ProblemCode code, int status, String detail, UriInfo uri, String retryAfterSeconds,
            String sku) {
        Problem body = new Problem(typePrefix + code.code(), code.title(), status, detail,
                uri == null ? null : uri.getPath(), sku);
        if (status >= 400 && status < 500) {
            refusals.get(code.code()).increment();
        }
        Response.ResponseBuilder response = Response.status(status).type(Problem.MEDIA_TYPE).entity(body);
        if (retryAfterSeconds != null || status == 503) {
            response.header("Retry-After", retryAfterSeconds != null ? retryAfterSeconds : retryAfter);
        }
        return response.build();
    }

    /** "quantity", "sku", "Idempotency-Key" or "body": the leaf of a violation's property path. */
    private static String describe(ConstraintViolation<?> violation) {
        String leaf = null;
        Path.Node last = null;
        for (Path.Node node : violation.getPropertyPath()) {
            last = node;
        }
        if (last != null) {
            leaf = last.getName();
        }
        if (last != null && last.getKind() == jakarta.validation.ElementKind.PARAMETER
                && "request".equals(leaf)) {
            return "body";
        }
        if ("idempotencyKey".equals(leaf)) {
            return "Idempotency-Key";
        }
        return leaf == null ? "request" : leaf;
    }

    private static String describe(JacksonException e) {
        if (e instanceof UnrecognizedPropertyException unknown) {
            return "unknown field '" + unknown.getPropertyName() + "'";
        }
        if (e instanceof MismatchedInputException mismatch) {
            String field = fieldOf(mismatch);
            Class<?> target = mismatch.getTargetType();
            String expected;
            if (target == null) {
                expected = "has the wrong type";
            } else if (target == Integer.class || target == int.class || target == Long.class
                    || target == long.class) {
                expected = "must be a JSON integer";
            } else if (target == String.class) {
                expected = "must be a JSON string";
            } else if (target == Boolean.class || target == boolean.class) {
                expected = "must be a JSON boolean";
            } else if (target == java.time.Instant.class) {
                // Not ISO-8601, or a year past 9999 without its sign: the range is InputRules.SALE_INSTANT_MESSAGE's
                expected = "must be an ISO-8601 instant such as 2026-12-01T12:00:00Z, "
                        + InputRules.SALE_INSTANT_MESSAGE.substring("must be ".length());
            } else {
                expected = field == null ? "must be a JSON object" : "has the wrong type";
            }
            return (field == null ? "body" : field) + ": " + expected;
        }
        if (e instanceof InputCoercionException) {
            return "a number is out of range";
        }
        if (e instanceof JsonMappingException mapping && fieldOf(mapping) != null) {
            return fieldOf(mapping) + ": has an invalid value";
        }
        if (e instanceof StreamReadException read) {
            String message = read.getOriginalMessage();
            if (message != null && message.startsWith("Duplicate field")) {
                return "body: duplicate field";
            }
            return "body is not valid JSON" + (read.getLocation() == null ? ""
                    : " (line " + read.getLocation().getLineNr() + ", column " + read.getLocation().getColumnNr()
                            + ")");
        }
        return "body is not valid JSON";
    }

    private static String fieldOf(JsonMappingException e) {
        return e.getPath().isEmpty() ? null
                : e.getPath().stream()
                        .map(ref -> ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
                        .collect(Collectors.joining("."));
    }
}
