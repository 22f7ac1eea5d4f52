package dev.quota.jaxrs;

import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.RunningCost;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.ext.WriterInterceptorContext;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Settles a request's actual cost once its response has ended ({@link ResponseEnd}: written, or
 * failed while it was written): the one place that says which figure is the actual cost, and when
 * a request is settled at all. Requests are settled only when they may be: a {@link SettledCost}
 * method's (watched from the request filter on), and a request whose resource asked for its
 * {@link QuotaMeter} (watched from then on); every other request costs nothing here. An
 * {@link AmountLimit} method, decided once its body is read, is not settled: its estimate stands.
 *
 * <table>
 *   <caption>What the end of a response does with the estimate its rule charged</caption>
 *   <tr><th>response</th><th>settled to</th></tr>
 *   <tr><td>status 400 or above</td><td>nothing: refunded as any refused request
 *       ({@link QuotaResponseFilter}), its estimate stays on the plan</td></tr>
 *   <tr><td>a {@link SettledCost#bytesPerToken()} method</td><td>the body's bytes written, in
 *       tokens begun: a client that went away mid-way pays for the bytes it was handed</td></tr>
 *   <tr><td>the resource measured ({@link QuotaMeter})</td><td>what it measured; a client that went
 *       away mid-stream is charged what was measured until then</td></tr>
 *   <tr><td>a {@value QuotaMeter#HEADER} header, a whole number {@code >= 0}, from a
 *       {@link SettledCost} method</td><td>that number</td></tr>
 *   <tr><td>none of these (or a header that is no such number: logged)</td><td>nothing: the
 *       estimate stands</td></tr>
 * </table>
 *
 * <p>A metered response and a {@link SettledCost#bytesPerToken()} response are charged while they
 * stream ({@link RunningCost}: batches drawn ahead, the settle gives back what was not used). A
 * meter tells its resource to stop ({@link QuotaMeter#add} answers false); a response billed by
 * the byte is written as far as its customer can pay, in whole tokens' worth of bytes, and then
 * cut off: its next write fails with an {@link java.io.IOException} and the client sees the body
 * break off ({@link ResponseEnd} asks {@link #allowed} before each write).
 */
final class CostSettling {

    private static final Logger log = LoggerFactory.getLogger(CostSettling.class);

    private final QuotaService service;

    CostSettling(QuotaService service) {
        this.service = service;
    }

    /**
     * Watches an admitted request whose cost may be settled: marks it so that its meter settles it,
     * and, for a {@link SettledCost} method, settles it when its response ends. Called by the
     * request filter, on the request's thread.
     */
    void admitted(ContainerRequestContext request, QuotaDecision decision, EndpointRule endpoint) {
        if (!decision.receipt().settleable()) {
            return;
        }
        request.setProperty(QuotaFeature.SETTLING, this);
        if (endpoint.settled()) {
            long bytesPerToken = endpoint.bytesPerToken();
            request.setProperty(QuotaFeature.SETTLED, bytesPerToken);
            RunningCost bytes = null;
            if (bytesPerToken > 0) {
                bytes = service.runningCost(decision);
                request.setProperty(QuotaFeature.RUNNING, bytes);
            }
            RunningCost running = bytes;
            ResponseEnd.onEnd(request, ending -> settle(request, ending, bytesPerToken, running));
        }
    }

    /**
     * Charges {@code meter} while it counts, and settles {@code request} by it when its response
     * ends, unless a {@link SettledCost} method's request is watched already. Called when the
     * resource first asks for the meter.
     */
    static void metered(ContainerRequestContext request, QuotaMeter meter) {
        if (request.getProperty(QuotaFeature.SETTLING) instanceof CostSettling settling) {
            QuotaDecision decision = QuotaFeature.decision(request);
            Object settled = request.getProperty(QuotaFeature.SETTLED);
            if (decision != null && (settled == null || settled.equals(0L))) {
                meter.charging(settling.service.runningCost(decision));
            }
            if (settled == null) {
                ResponseEnd.onEnd(request, ending -> settling.settle(request, ending, 0, null));
            }
        }
    }

    /**
     * How many of the {@code len} bytes about to be written after {@code written} may be: all of
     * them, unless the customer cannot pay for them (a byte-billed response) or the resource counted
     * on after its meter said stop. Fewer than {@code len}: the response is cut off after them.
     */
    static long allowed(WriterInterceptorContext response, long written, long len) {
        if (response.getProperty(QuotaFeature.RUNNING) instanceof RunningCost bytes
                && response.getProperty(QuotaFeature.SETTLED) instanceof Long bytesPerToken && bytesPerToken > 0) {
            long after = written + len;
            if (bytes.cover(after / bytesPerToken + (after % bytesPerToken == 0 ? 0 : 1))) {
                return len;
            }
            // the bytes of every token it can pay for, a token begun counted whole
            long payable = bytes.covered() >= Long.MAX_VALUE / bytesPerToken ? Long.MAX_VALUE
                    : bytes.covered() * bytesPerToken;
            return Math.max(0, Math.min(len, payable - written));
        }
        if (response.getProperty(QuotaFeature.METER) instanceof QuotaMeter meter && meter.cut()) {
            return 0;
        }
        return len;
    }

    private void settle(ContainerRequestContext request, ResponseEnd.Ending ending, long bytesPerToken,
                        @Nullable RunningCost bytes) {
        QuotaDecision decision = QuotaFeature.decision(request);
        if (decision == null || ending.status() >= 400) {
            return;
        }
        long actual = actual(request, ending, bytesPerToken);
        RunningCost running = bytes != null ? bytes
                : request.getProperty(QuotaFeature.METER) instanceof QuotaMeter meter ? meter.running() : null;
        if (actual >= 0 && running != null) {
            running.finish(actual);
        } else if (actual >= 0) {
            service.settle(decision, actual);
        }
    }

    /** The actual cost, as the table says; -1 when the estimate stands. */
    private static long actual(ContainerRequestContext request, ResponseEnd.Ending ending, long bytesPerToken) {
        if (bytesPerToken > 0) {
            return ending.bytes() / bytesPerToken + (ending.bytes() % bytesPerToken == 0 ? 0 : 1);
        }
        if (request.getProperty(QuotaFeature.METER) instanceof QuotaMeter meter && meter.measured()) {
            return meter.cost();
        }
        Object header = request.getProperty(QuotaFeature.SETTLED) == null ? null
                : ending.headers().getFirst(QuotaMeter.HEADER);
        if (header == null) {
            return -1;
        }
        long actual = parse(header);
        if (actual < 0) {
            log.warn("quota: {} {} answered {}: {} is not a whole number >= 0; its estimate stands",
                    request.getMethod(), request.getUriInfo().getRequestUri().getRawPath(), QuotaMeter.HEADER, header);
        }
        return actual;
    }

    /** The header's number, or -1 when it is not a whole number from 0 to 10^18 - 1. */
    static long parse(Object header) {
        String text = header.toString().trim();
        if (text.isEmpty() || text.length() > 18) {
            return -1;
        }
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return -1;
            }
        }
        return Long.parseLong(text);
    }
}
