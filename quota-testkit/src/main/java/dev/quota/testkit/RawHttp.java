package dev.quota.testkit;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * HTTP/1.1 for tests, over a socket bound to a chosen loopback address ({@code 127.0.0.2}), which
 * the JDK's HTTP client cannot do: the way to be two different clients from one machine; and
 * requests the JDK's client refuses to send (odd paths, NUL bytes in headers, bodies of any size),
 * with their answers as they came. One request per connection ({@code Connection: close}).
 */
public final class RawHttp {

    private static final Pattern CONTENT_LENGTH = Pattern.compile("\r\ncontent-length:\\s*(\\d+)");

    /**
     * An answer: status code, headers by lower-case name (last value wins), body as text, and the
     * status line as the server wrote it ({@code HTTP/1.1 429 Too Many Requests}).
     */
    public record Answer(int status, Map<String, String> headers, String body, String statusLine) {
        /** The header's value, by any spelling of its name; null when absent. */
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private RawHttp() {
    }

    /** GET {@code path} on {@code 127.0.0.1:port} from {@code from}, with header pairs {@code name, value, ...}. */
    public static Answer get(String from, int port, String path, String... headers) {
        return send(from, port, "GET", path, null, headers);
    }

    /** {@code method path} from 127.0.0.1, as {@link #send(String, int, String, String, byte[], String...)}. */
    public static Answer send(int port, String method, String path, byte[] body, String... headers) {
        return send("127.0.0.1", port, method, path, body, headers);
    }

    /**
     * {@code method path} on {@code 127.0.0.1:port} from {@code from} with {@code body} (none when
     * null) and header pairs {@code name, value, ...} written as ISO-8859-1 bytes, so a value may
     * hold any byte but CR and LF. The body is written by another thread while the answer is read,
     * so a server that answers and closes before it has read a large body still gives its answer.
     */
    public static Answer send(String from, int port, String method, String path, byte[] body, String... headers) {
        try (Socket socket = new Socket()) {
            socket.setSoTimeout(30_000);
            socket.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
            StringBuilder head = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\n")
                    .append("Host: 127.0.0.1:").append(port).append("\r\nConnection: close\r\nAccept: */*\r\n");
            if (body != null) {
                head.append("Content-Length: ").append(body.length).append("\r\n");
            }
            for (int i = 0; i + 1 < headers.length; i += 2) {
                head.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
            }
            OutputStream out = socket.getOutputStream();
            out.write(head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            Thread writer = null;
            if (body != null) {
                writer = new Thread(() -> {
                    try {
                        out.write(body);
                        out.flush();
                    } catch (IOException e) {
                        // the server answered without reading it all: the answer says what it made of it
                    }
                }, "raw-http-body");
                writer.start();
            }
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            try {
                readAnswer(socket.getInputStream(), answer);
            } catch (IOException e) {
                // a reset after the answer arrived: keep what was read
                if (answer.size() == 0) {
                    throw e;
                }
            }
            if (writer != null) {
                writer.join(30_000);
            }
            return parse(answer.toByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path + " from " + from + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * A request whose body is not all sent yet: the server has its head and the first part of its
     * body, and waits for the rest (a large upload under way). The server may answer before the
     * rest is sent ({@link #answer()} completes), as a filter that refuses the request does.
     */
    public static final class Held implements AutoCloseable {
        private final Socket socket;
        private final byte[] rest;
        private final CompletableFuture<Answer> answer = new CompletableFuture<>();

        private Held(Socket socket, byte[] rest) {
            this.socket = socket;
            this.rest = rest;
        }

        /** The answer, completed once it has arrived whole (exceptionally when the connection failed). */
        public CompletableFuture<Answer> answer() {
            return answer;
        }

        /**
         * Sends the rest of the body and waits for the answer.
         *
         * @throws IllegalStateException when no answer arrives within 30 s
         */
        public Answer finish() {
            try {
                OutputStream out = socket.getOutputStream();
                out.write(rest);
                out.flush();
                return answer.get(30, TimeUnit.SECONDS);
            } catch (IOException | ExecutionException | TimeoutException e) {
                throw new IllegalStateException("no answer to a held request after its body was finished", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    /**
     * {@code method path} on {@code 127.0.0.1:port} from {@code from}, with a {@code Content-Length}
     * of {@code first} and {@code rest} together but only {@code first} sent: the request stays
     * under way, holding whatever the server gave it on arrival, until {@link Held#finish()}.
     */
    public static Held hold(String from, int port, String method, String path, byte[] first, byte[] rest,
            String... headers) {
        Socket socket = new Socket();
        try {
            socket.setSoTimeout(60_000);
            socket.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
            StringBuilder head = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\n")
                    .append("Host: 127.0.0.1:").append(port).append("\r\nConnection: close\r\nAccept: */*\r\n")
                    .append("Content-Length: ").append(first.length + rest.length).append("\r\n");
            for (int i = 0; i + 1 < headers.length; i += 2) {
                head.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
            }
            OutputStream out = socket.getOutputStream();
            out.write(head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(first);
            out.flush();
        } catch (IOException e) {
            try {
                socket.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw new UncheckedIOException(method + " " + path + " from " + from + " failed", e);
        }
        Held held = new Held(socket, rest);
        Thread reader = new Thread(() -> {
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            try {
                readAnswer(socket.getInputStream(), answer);
                held.answer.complete(parse(answer.toByteArray()));
            } catch (IOException e) {
                held.answer.completeExceptionally(e);
            }
        }, "raw-http-held");
        reader.setDaemon(true);
        reader.start();
        return held;
    }

    /** POST of a JSON text to {@code path} on 127.0.0.1 with header pairs {@code name, value, ...}. */
    public static Answer postJson(int port, String path, String json, String... headers) {
        return postJson("127.0.0.1", port, path, json, headers);
    }

    /** POST of a JSON text to {@code path} on {@code 127.0.0.1:port} from {@code from}. */
    public static Answer postJson(String from, int port, String path, String json, String... headers) {
        String[] all = Arrays.copyOf(headers, headers.length + 2);
        all[headers.length] = "Content-Type";
        all[headers.length + 1] = "application/json";
        return send(from, port, "POST", path, json.getBytes(StandardCharsets.UTF_8), all);
    }

    /**
     * Reads one answer: up to the end of its body when its head gives the length (or its last chunk
     * arrived), else up to the end of the stream. A server that keeps the connection open after a
     * complete answer despite {@code Connection: close} (Helidon does after some answers to a POST)
     * is not waited on.
     */
    private static void readAnswer(InputStream in, ByteArrayOutputStream answer) throws IOException {
        byte[] buffer = new byte[8192];
        int read;
        while ((read = in.read(buffer)) >= 0) {
            answer.write(buffer, 0, read);
            if (complete(answer.toByteArray())) {
                return;
            }
        }
    }

    private static boolean complete(byte[] raw) {
        String text = new String(raw, StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) {
            return false;
        }
        String head = text.substring(0, end).toLowerCase(Locale.ROOT);
        Matcher length = CONTENT_LENGTH.matcher(head);
        if (length.find()) {
            return raw.length - (end + 4) >= Long.parseLong(length.group(1));
        }
        return head.contains("\r\ntransfer-encoding: chunked") && text.endsWith("\r\n0\r\n\r\n");
    }

    private static Answer parse(byte[] raw) throws IOException {
        String text = new String(raw, StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) {
            throw new IOException("no complete response head in: " + text);
        }
        // the head stops before its blank line: no empty line at its end
        List<String> lines = List.of(text.substring(0, end).split("\r\n", -1));
        int status = Integer.parseInt(lines.get(0).split(" ", -1)[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            int colon = line.indexOf(':');
            headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
        }
        byte[] body = Arrays.copyOfRange(raw, end + 4, raw.length);
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = dechunk(body);
        }
        return new Answer(status, headers, new String(body, StandardCharsets.UTF_8), lines.get(0));
    }

    private static byte[] dechunk(byte[] chunked) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        InputStream in = new ByteArrayInputStream(chunked);
        while (true) {
            StringBuilder sizeLine = new StringBuilder();
            int c;
            while ((c = in.read()) != '\n') {
                if (c < 0) {
                    throw new IOException("truncated chunked body");
                }
                if (c != '\r') {
                    sizeLine.append((char) c);
                }
            }
            int semicolon = sizeLine.indexOf(";");
            int size = Integer.parseInt((semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).toString().trim(), 16);
            if (size == 0) {
                return out.toByteArray();
            }
            out.write(in.readNBytes(size));
            in.skipNBytes(2);
        }
    }
}
