package dev.quota.jaxrs;

import dev.quota.jaxrs.internal.Commits;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.ext.WriterInterceptor;
import jakarta.ws.rs.ext.WriterInterceptorContext;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end of a request's response: what must happen once it has been written, or once writing it
 * failed (the client went away), runs then, exactly once. {@link QuotaFeature} gives back a
 * request's in-flight leases here.
 *
 * <pre>{@code
 * ResponseEnd.onEnd(request, ending -> log.info("{} bytes sent", ending.bytes()));
 * }</pre>
 *
 * <p>A response with an entity ends when the outermost writer interceptor's {@code proceed}
 * returns or throws; one without (a 204, a HEAD request) when the last response filter ran. An
 * action added after the end runs at once. An action that throws is logged and never changes the
 * response. A response the runtime answers without running response filters (on some runtimes, an
 * exception no mapper handles) never ends here: what its actions would have given back comes back
 * by itself (an in-flight lease at its lease timeout).
 */
public final class ResponseEnd {

    /** The provider's priority: the last response filter to run, the outermost writer interceptor. */
    static final int PRIORITY = 0;

    private static final String PROPERTY = "dev.quota.jaxrs.responseEnd";
    private static final Logger log = LoggerFactory.getLogger(ResponseEnd.class);

    /** Guarded by this: the actions not run yet. */
    private final List<Consumer<Ending>> actions = new ArrayList<>(2);
    /** Guarded by this: how the response ended, once it has. */
    private @Nullable Ending ended;
    /** The response status, as the response filters left it (set before the entity is written). */
    private volatile int status;

    private ResponseEnd() {
    }

    /**
     * How a response ended.
     *
     * @param status  its status code
     * @param written whether it was written completely: false when writing failed or the client went away
     * @param bytes   the entity bytes written (all of them when {@code written}); 0 without an entity
     * @param headers its headers as they were sent
     * @param failure why writing failed, or null
     */
    public record Ending(int status, boolean written, long bytes, MultivaluedMap<String, Object> headers,
                         @Nullable Throwable failure) {

        /** @throws NullPointerException if headers is null */
        public Ending {
            Objects.requireNonNull(headers, "headers");
        }
    }

    /**
     * Runs {@code action} once the response to {@code request} has ended, or at once when it has.
     * Works on a request of an application with {@link QuotaFeature} registered.
     *
     * @throws NullPointerException if an argument is null
     */
    public static void onEnd(ContainerRequestContext request, Consumer<Ending> action) {
        Objects.requireNonNull(action, "action");
        ResponseEnd end = request.getProperty(PROPERTY) instanceof ResponseEnd existing ? existing : null;
        if (end == null) {
            // added to on the request's own thread, before its response is written
            end = new ResponseEnd();
            request.setProperty(PROPERTY, end);
        }
        Ending already;
        synchronized (end) {
            already = end.ended;
            if (already == null) {
                end.actions.add(action);
                return;
            }
        }
        run(action, already);
    }

    /** Ends the response: runs every action added so far, each once; a second end does nothing. */
    private void end(Ending ending) {
        List<Consumer<Ending>> due;
        synchronized (this) {
            if (ended != null) {
                return;
            }
            ended = ending;
            due = List.copyOf(actions);
            actions.clear();
        }
        for (Consumer<Ending> action : due) {
            run(action, ending);
        }
    }

    private static void run(Consumer<Ending> action, Ending ending) {
        try {
            action.accept(ending);
        } catch (RuntimeException e) {
            // the response is out already: nothing to tell the client, everything to tell the log
            log.error("quota: an action at the end of a response (status {}) failed", ending.status(), e);
        }
    }

    /**
     * Finds the end of each response that has actions waiting: a response filter for responses
     * without an entity, a writer interceptor around the entity for the others.
     */
    static final class EndOfResponse implements ContainerResponseFilter, WriterInterceptor {

        @Override
        public void filter(ContainerRequestContext request, ContainerResponseContext response) {
            if (!(request.getProperty(PROPERTY) instanceof ResponseEnd end)) {
                return;
            }
            end.status = response.getStatus();
            if (!response.hasEntity() || "HEAD".equals(request.getMethod())) {
                end.end(new Ending(response.getStatus(), true, 0, response.getHeaders(), null));
            }
        }

        @Override
        public void aroundWriteTo(WriterInterceptorContext context) throws IOException {
            if (!(context.getProperty(PROPERTY) instanceof ResponseEnd end)) {
                context.proceed();
                return;
            }
            Counting counting = new Counting(context.getOutputStream(), context);
            context.setOutputStream(counting);
            Throwable failure = null;
            try {
                context.proceed();
            } catch (IOException | RuntimeException | Error e) {
                failure = e;
                throw e;
            } finally {
                end.end(new Ending(end.status, failure == null, counting.bytes, context.getHeaders(), failure));
            }
        }
    }

    /**
     * Counts the bytes written through it, and writes only what {@link CostSettling#allowed} lets
     * through: a response its customer cannot pay for further is cut off with an IOException.
     */
    private static final class Counting extends FilterOutputStream {
        private final WriterInterceptorContext context;
        long bytes;

        Counting(OutputStream out, WriterInterceptorContext context) {
            super(out);
            this.context = context;
        }

        @Override
        public void write(int b) throws IOException {
            if (CostSettling.allowed(context, bytes, 1) < 1) {
                throw cutOff();
            }
            out.write(b);
            bytes++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            int allowed = (int) CostSettling.allowed(context, bytes, len);
            if (allowed > 0) {
                out.write(b, off, allowed);
                bytes += allowed;
            }
            if (allowed < len) {
                throw cutOff();
            }
        }

        /**
         * Sends what was written so far (a response not committed yet goes out with its status and
         * those bytes, not as an error), and the exception that breaks the body off.
         */
        private IOException cutOff() throws IOException {
            Commits.commitAndFlush(out);
            return new IOException("quota: the customer's plan has nothing left; the response is cut off after "
                    + bytes + " bytes");
        }
    }
}
