package dev.quota.bench.http;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * One keep-alive HTTP/1.1 connection to a bench server on loopback: request line, headers and
 * body out in one write (a small body arrives with its headers, as a client's JSON does), status
 * and body in.
 */
public final class HttpConnection implements AutoCloseable {
    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private final byte[] line = new byte[8192];
    private boolean closing;

    /** Connects to {@code port} on loopback, {@code TCP_NODELAY}, 10 s read timeout. */
    public HttpConnection(int port) throws IOException {
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(10_000);
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        out = new BufferedOutputStream(socket.getOutputStream(), 1024);
        in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
    }

    /** {@code GET path}, or with a body {@code POST path} of JSON; answers the status. */
    public int send(String path, String apiKey, @Nullable String body) throws IOException {
        String request = body == null
                ? "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n"
                        + "X-API-Key: " + apiKey + "\r\n\r\n"
                : "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n"
                        + "Content-Type: application/json\r\nContent-Length: "
                        + body.getBytes(StandardCharsets.UTF_8).length + "\r\nX-API-Key: " + apiKey + "\r\n\r\n" + body;
        out.write(request.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        closing = false;
        String statusLine = readLine();
        int status = Integer.parseInt(statusLine.substring(9, 12));
        long length = -1;
        boolean chunked = false;
        while (true) {
            String header = readLine();
            if (header.isEmpty()) {
                break;
            }
            int colon = header.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String name = header.substring(0, colon).trim();
            String value = header.substring(colon + 1).trim();
            if (name.equalsIgnoreCase("Content-Length")) {
                length = Long.parseLong(value);
            } else if (name.equalsIgnoreCase("Transfer-Encoding") && value.equalsIgnoreCase("chunked")) {
                chunked = true;
            } else if (name.equalsIgnoreCase("Connection") && value.equalsIgnoreCase("close")) {
                closing = true;
            }
        }
        if (chunked) {
            while (true) {
                long size = Long.parseLong(readLine().split(";")[0].trim(), 16);
                skip(size);
                readLine();
                if (size == 0) {
                    break;
                }
            }
        } else if (length > 0) {
            skip(length);
        }
        return status;
    }

    private void skip(long n) throws IOException {
        long left = n;
        while (left > 0) {
            long skipped = in.skip(left);
            if (skipped <= 0) {
                if (in.read() < 0) {
                    throw new EOFException("connection closed in a body");
                }
                skipped = 1;
            }
            left -= skipped;
        }
    }

    private String readLine() throws IOException {
        int n = 0;
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("connection closed");
            }
            if (b == '\n') {
                int end = n > 0 && line[n - 1] == '\r' ? n - 1 : n;
                return new String(line, 0, end, StandardCharsets.ISO_8859_1);
            }
            if (n < line.length) {
                line[n++] = (byte) b;
            }
        }
    }

    /** Whether the last response said {@code Connection: close}: the server ends keep-alive here. */
    public boolean closing() {
        return closing;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
