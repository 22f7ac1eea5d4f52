package dev.quota.jaxrs.internal;

import jakarta.ws.rs.container.ContainerRequestContext;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.ByteBuffer;
import java.util.Objects;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.jspecify.annotations.Nullable;

/**
 * The body of a Jetty 12 request, read as far as the connection already holds it: Jersey's entity
 * stream over Jetty answers {@code available()} with 0 until it has read, so the probe reads the
 * request's content chunks itself ({@link Request#read()}, which never waits) and hands what it read
 * back as the start of the entity stream.
 */
final class JettyBody implements BodyProbe {

    private final Request jetty;

    JettyBody(Request jetty) {
        this.jetty = jetty;
    }

    @Override
    public boolean arrived(ContainerRequestContext request, int length) {
        byte[] body = new byte[length];
        int have = 0;
        @Nullable Throwable failure = null;
        while (have < length) {
            Content.Chunk chunk = jetty.read();
            if (chunk == null) {
                break; // nothing more without waiting
            }
            try {
                if (Content.Chunk.isFailure(chunk)) {
                    failure = chunk.getFailure();
                    break;
                }
                ByteBuffer bytes = chunk.getByteBuffer();
                int n = Math.min(bytes.remaining(), length - have);
                bytes.get(body, have, n);
                have += n;
                if (chunk.isLast()) {
                    break;
                }
            } finally {
                chunk.release();
            }
        }
        if (have == 0 && failure == null) {
            return false; // nothing read: the entity stream is as it was
        }
        InputStream read = new ByteArrayInputStream(body, 0, have);
        if (have == length) {
            request.setEntityStream(read);
            return true;
        }
        Throwable failed = failure;
        InputStream rest = failed == null ? request.getEntityStream() : new InputStream() {
            @Override
            public int read() throws IOException {
                throw failure();
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                // as InputStream's own: the arguments checked, nothing asked nothing read, else the failure
                Objects.checkFromIndexSize(off, len, b.length);
                if (len == 0) {
                    return 0;
                }
                throw failure();
            }

            private IOException failure() {
                return failed instanceof IOException io ? io : new IOException(failed);
            }
        };
        request.setEntityStream(new SequenceInputStream(read, rest));
        return false;
    }
}
