package dev.quota.demo;

import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Refuses an HTTP/2 request whose header list is over {@link #MAX_BYTES} with a 431 problem on its
 * own stream. Jetty's HPACK decoder is given more room ({@link ApiServer#HTTP2_DECODE_BYTES}) so
 * that such a block is still decoded whole, which keeps the connection's compression table in
 * step with the client's: the connection and every other stream on it carry on. Only a block over
 * that room ends the connection (GOAWAY), never the listener. HTTP/1.1 requests are held to the
 * same 8 KB by Jetty's parser, which answers 431 itself.
 */
final class HeaderSizeLimit extends Handler.Wrapper {

    /** The most a request's headers may take, counted as HPACK counts them (RFC 7541, section 4.1). */
    static final int MAX_BYTES = 8_192;

    HeaderSizeLimit(Handler next) {
        super(next);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        if (request.getConnectionMetaData().getHttpVersion() == HttpVersion.HTTP_2 && size(request) > MAX_BYTES) {
            ServerProblems.send(response, callback, ProblemErrorHandler.problem(431, null));
            return true;
        }
        return super.handle(request, response, callback);
    }

    /** Each field's name and value plus 32, and the pseudo-headers, as the HPACK size of the list. */
    private static long size(Request request) {
        long size = request.getMethod().length() + 32 + request.getHttpURI().getPathQuery().length() + 32;
        String authority = request.getHttpURI().getAuthority();
        size += (authority == null ? 0 : authority.length()) + 32;
        for (HttpField field : request.getHeaders()) {
            size += field.getName().length() + (field.getValue() == null ? 0 : field.getValue().length()) + 32;
        }
        return size;
    }
}
