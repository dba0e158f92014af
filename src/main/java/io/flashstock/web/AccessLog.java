package io.flashstock.web;

import java.security.Principal;

import io.quarkus.vertx.http.runtime.security.QuarkusHttpUser;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.jboss.logging.Logger;
import org.jboss.logging.MDC;

/**
 * Every API request gets a request id ({@link RequestIds}: in the MDC, so on every log line written while it is
 * served, on the event loop and on the worker alike; and echoed in the response's {@code X-Request-Id}), and one
 * access log line when it ends, category {@value #CATEGORY} at INFO:
 * {@code method=POST path=/items/{sku}/purchases status=201 duration_ms=3.214 sub=u-1}. The path is the endpoint's
 * template (the one {@code http_server_requests_seconds} reports as {@code uri}), never the raw path
 * ({@link PathLabels}), so no sku, order id or anything else a caller puts in a URL is logged; {@code sub} is the
 * bearer token's subject ({@code -} without a verified token). No header is ever logged, so neither is a token.
 *
 * <p>Runs first of all routes (before {@link BodyLimit}), so a 413 is logged with its id too.
 */
@Singleton
public class AccessLog {

    /** The log category of the access lines: {@code quarkus.log.category."flashstock.access".level=WARN} mutes them. */
    public static final String CATEGORY = "flashstock.access";

    /** Where Quarkus REST leaves the template of the endpoint that answered (in the request's Vert.x context). */
    private static final String TEMPLATE = "UrlPathTemplate";
    private static final Logger LOG = Logger.getLogger(CATEGORY);

    private final PathLabels paths;

    AccessLog(PathLabels paths) {
        this.paths = paths;
    }

    void install(@Observes Router router) {
        router.route().order(Integer.MIN_VALUE).handler(this::begin);
    }

    private void begin(RoutingContext rc) {
        long start = System.nanoTime();
        String id = RequestIds.accept(rc.request().getHeader(RequestIds.HEADER));
        Context context = Vertx.currentContext();
        MDC.put(RequestIds.MDC_KEY, id);
        rc.response().putHeader(RequestIds.HEADER, id);
        rc.addEndHandler(ended -> end(rc, context, id, start));
        rc.next();
    }

    private void end(RoutingContext rc, Context context, String id, long start) {
        try {
            if (LOG.isInfoEnabled()) {
                long micros = (System.nanoTime() - start) / 1_000;
                int status = rc.response().getStatusCode();
                String line = "method=" + rc.request().method().name() + " path=" + template(rc, context, status)
                        + " status=" + status + " duration_ms=" + millis(micros) + " sub=" + subject(rc);
                MDC.put(RequestIds.MDC_KEY, id);
                LOG.info(line);
            }
        } finally {
            MDC.remove(RequestIds.MDC_KEY);
        }
    }

    /** {@code micros} as milliseconds with three decimals ({@code 2871} is {@code 2.871}), without String.format. */
    static String millis(long micros) {
        String fraction = Long.toString(1_000 + micros % 1_000).substring(1);
        return micros / 1_000 + "." + fraction;
    }

    /** The endpoint's template, else the name {@link PathLabels} gives the path: never the raw path. */
    private String template(RoutingContext rc, Context context, int status) {
        Object template = context == null ? null : context.getLocal(TEMPLATE);
        return template instanceof String path ? path : paths.name(rc.normalizedPath(), status);
    }

    /** The verified token's {@code sub} (never the token), or {@code -}. */
    private static String subject(RoutingContext rc) {
        if (!(rc.user() instanceof QuarkusHttpUser user) || user.getSecurityIdentity().isAnonymous()) {
            return "-";
        }
        Principal principal = user.getSecurityIdentity().getPrincipal();
        String sub = principal instanceof JsonWebToken jwt ? jwt.getSubject() : principal.getName();
        return sub == null ? "-" : printable(sub);
    }

    /**
     * {@code text} with every character outside {@code !} to {@code ~} (space, control, non-ASCII) as one {@code ?}
     * (a character outside the BMP too, not one per half of its surrogate pair), so a subject cannot break the line;
     * the text itself when it needs no change, which is every request's case, so the line costs no regular expression
     * or copy.
     */
    static String printable(String text) {
        int i = 0;
        while (i < text.length() && InputRules.isPrintableAscii(text.charAt(i))) {
            i++;
        }
        if (i == text.length()) {
            return text;
        }
        StringBuilder shown = new StringBuilder(text.length()).append(text, 0, i);
        text.codePoints().skip(i).forEach(c -> shown.append(InputRules.isPrintableAscii(c) ? (char) c : '?'));
        return shown.toString();
    }
}
