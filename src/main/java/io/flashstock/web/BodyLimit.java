package io.flashstock.web;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.error.ProblemCode;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Singleton;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.ext.Provider;
import jakarta.ws.rs.ext.ReaderInterceptor;
import jakarta.ws.rs.ext.ReaderInterceptorContext;

/**
 * Request bodies over {@code flashstock.max-body-size} (16 KiB) get 413 {@code payload-too-large} as
 * problem+json. A declared Content-Length is checked before any byte is read; a chunked body is counted while
 * it is read. {@code quarkus.http.limits.max-body-size} stays as the transport's hard ceiling above this.
 */
@Singleton
public class BodyLimit {

    private final long limit;
    private final String problemType;

    BodyLimit(FlashstockConfig config) {
        this.limit = config.maxBodySize().asLongValue();
        this.problemType = config.problemTypePrefix() + ProblemCode.PAYLOAD_TOO_LARGE.code();
    }

    /** The limit in bytes. */
    public long limit() {
        return limit;
    }

    void declaredLength(@Observes Router router) {
        router.route().order(Integer.MIN_VALUE).handler(ctx -> {
            String length = ctx.request().getHeader(HttpHeaders.CONTENT_LENGTH);
            if (length != null && isOver(length)) {
                String body = "{\"type\":\"" + problemType + "\",\"title\":\""
                        + ProblemCode.PAYLOAD_TOO_LARGE.title() + "\",\"status\":413,\"detail\":\"" + detail()
                        + "\"}";
                ctx.response().setStatusCode(413).putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE)
                        .putHeader(HttpHeaders.CONNECTION, "close").end(body);
                return;
            }
            ctx.next();
        });
    }

    private boolean isOver(String contentLength) {
        try {
            return Long.parseLong(contentLength.trim()) > limit;
        } catch (NumberFormatException e) {
            return false; // the HTTP layer refuses a malformed Content-Length itself
        }
    }

    private String detail() {
        return tooLarge(limit);
    }

    /** The detail of a 413 for a body limit of {@code limit} bytes. */
    static String tooLarge(long limit) {
        return "The request body is larger than " + limit + " bytes.";
    }

    /**
     * Counts a body without Content-Length while it is read. Quarkus REST creates providers before runtime
     * configuration exists, so the limit is looked up on first use.
     */
    @Provider
    public static class Counting implements ReaderInterceptor {

        private final Instance<BodyLimit> bodyLimit;

        Counting(Instance<BodyLimit> bodyLimit) {
            this.bodyLimit = bodyLimit;
        }

        @Override
        public Object aroundReadFrom(ReaderInterceptorContext context) throws IOException {
            context.setInputStream(new Limited(context.getInputStream(), bodyLimit.get().limit()));
            return context.proceed();
        }
    }

    private static final class Limited extends FilterInputStream {
        private final long limit;
        private long read;

        Limited(InputStream in, long limit) {
            super(in);
            this.limit = limit;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            if (n > 0) {
                count(n);
            }
            return n;
        }

        private void count(int n) {
            read += n;
            if (read > limit) {
                throw new WebApplicationException(413);
            }
        }
    }
}
