package dev.quota.jaxrs;

import dev.quota.jaxrs.internal.ClientFailures;
import dev.quota.jaxrs.internal.ProblemResponses;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ReaderInterceptor;
import jakarta.ws.rs.ext.ReaderInterceptorContext;
import java.io.IOException;

/**
 * A request body the client did not finish sending (it ended before its {@code Content-Length},
 * the client reset or closed its connection, or stalled until the server's idle timeout) ends here
 * as one sampled INFO line on {@link ClientErrors} and an answer of {@code 400 unreadable-body} or
 * {@code 408 body-timeout}, instead of reaching the runtime, which would log it with a stack trace:
 * Jersey logs a WARNING "An exception mapping did not successfully produce and processed a
 * response" with about 60 lines for each.
 *
 * <p>For every body a resource reads, the README's import's as much as a transfer's. A body with an
 * amount is answered the same way by {@link AmountInterceptor}, inside this one, which charges it
 * too. A body the reader cannot parse, and failures that are not the client's (see
 * {@link ClientFailures}), pass unchanged.
 */
final class ClientReadFailures implements ReaderInterceptor {

    /** Outside {@link AmountInterceptor}: sees what that one did not answer. */
    static final int PRIORITY = Priorities.USER - 1;

    @Override
    public Object aroundReadFrom(ReaderInterceptorContext context) throws IOException {
        try {
            return context.proceed();
        } catch (WebApplicationException answered) {
            throw answered;
        } catch (IOException | RuntimeException e) {
            Response answer = ClientErrors.bodyFailure(null, e);
            if (answer == null) {
                Throwable cause = ClientFailures.clientCause(e);
                if (cause == null) {
                    throw e;
                }
                ClientErrors.unreadableBody(null, cause); // reset or closed mid-body: nobody reads the answer
                answer = ProblemResponses.unreadableBody(null);
            }
            throw new WebApplicationException(answer);
        }
    }
}
