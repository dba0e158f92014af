package io.flashstock.salepage;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.vertx.http.ManagementInterface;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

/**
 * The live sale page on the management port ({@code quarkus.management.port}, 9000, beside {@code /q/metrics}; never on
 * the API port): {@code /sale/} (HTML, with {@code page.css} and {@code page.js} from {@code salepage/} on the class
 * path, nothing from elsewhere, so it works offline) and {@code /sale/data}, the JSON it polls once a second
 * ({@link SalePageFeed}). Read-only; like {@code /q/metrics} it needs no token, so reach 9000 only from inside the
 * cluster (docs/operations.md, "The sale page").
 */
@ApplicationScoped
public class SalePageRoutes {

    private static final Logger LOG = Logger.getLogger(SalePageRoutes.class);
    /** The page's own files only; the script polls the same origin. */
    private static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
            + "img-src 'self'";

    private final byte[] html = resource("index.html");
    private final byte[] css = resource("page.css");
    private final byte[] script = resource("page.js");
    private final SalePageFeed feed;
    private final ObjectMapper json;

    SalePageRoutes(SalePageFeed feed, ObjectMapper json) {
        this.feed = feed;
        this.json = json;
    }

    void register(@Observes ManagementInterface management) {
        Router router = management.router();
        router.get("/sale/").handler(rc -> send(rc, "text/html; charset=utf-8", html));
        // After /sale/, which answers that path itself: /sale goes to /sale/, where the page's relative links
        // (page.css, page.js, data) resolve under /sale/.
        router.get("/sale").handler(rc -> rc.redirect("/sale/"));
        router.get("/sale/page.css").handler(rc -> send(rc, "text/css; charset=utf-8", css));
        router.get("/sale/page.js").handler(rc -> send(rc, "text/javascript; charset=utf-8", script));
        router.get("/sale/data").blockingHandler(this::data, false);
    }

    private void data(RoutingContext rc) {
        try {
            send(rc, "application/json", json.writeValueAsBytes(feed.current()));
        } catch (JsonProcessingException | RuntimeException e) {
            LOG.debugf("The sale page's data could not be built: %s", e.toString());
            rc.response().setStatusCode(503).putHeader("Cache-Control", "no-store").end();
        }
    }

    private static void send(RoutingContext rc, String type, byte[] body) {
        rc.response().putHeader("Content-Type", type).putHeader("Cache-Control", "no-store")
                .putHeader("X-Content-Type-Options", "nosniff").putHeader("Content-Security-Policy", CSP)
                .end(Buffer.buffer(body));
    }

    /** A file of {@code salepage/} on the class path, read once (the native image includes {@code salepage/**}). */
    private static byte[] resource(String name) {
        String path = "salepage/" + name;
        try (InputStream in = SalePageRoutes.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("Missing " + path + " on the class path");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + path, e);
        }
    }
}
