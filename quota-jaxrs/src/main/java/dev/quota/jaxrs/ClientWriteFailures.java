package dev.quota.jaxrs;

import dev.quota.jaxrs.internal.ClientFailures;
import jakarta.ws.rs.ext.WriterInterceptor;
import jakarta.ws.rs.ext.WriterInterceptorContext;
import java.io.IOException;

/**
 * A response the client did not take (it reset its stream, closed its connection, or did not read
 * until a timeout: a shut HTTP/2 window, a socket read a byte at a time) ends here as one sampled
 * INFO line on {@link ClientErrors}, without a stack trace, instead of reaching the runtime, which
 * would log it as an error with one: Jersey logs SEVERE "An I/O error has occurred while writing a
 * response message entity" with about 60 lines for each.
 *
 * <p>The outermost writer interceptor, so {@link ResponseEnd} inside it still sees the failure (the
 * response ends not written, its lease given back). The failure is not passed on: the stream or
 * connection is broken already and the runtime's later writes to it fail quietly. Failures that are
 * not the client's (see {@link ClientFailures}) pass unchanged.
 */
final class ClientWriteFailures implements WriterInterceptor {

    /** Outside {@link ResponseEnd.EndOfResponse}: runs first, sees its failure last. */
    static final int PRIORITY = ResponseEnd.PRIORITY - 1;

    @Override
    public void aroundWriteTo(WriterInterceptorContext context) throws IOException {
        try {
            context.proceed();
        } catch (IOException | RuntimeException e) {
            var cause = ClientFailures.clientCause(e);
            if (cause == null) {
                throw e;
            }
            ClientErrors.responseNotWritten(cause);
        }
    }
}
