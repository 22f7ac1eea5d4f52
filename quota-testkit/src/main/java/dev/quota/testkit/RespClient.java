package dev.quota.testkit;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A minimal blocking RESP2 client over one socket, to set up and inspect test servers without a Redis
 * client library. Not for production traffic. Thread-safe (one command at a time); I/O failures are
 * {@link UncheckedIOException}s.
 */
public final class RespClient implements AutoCloseable {

    /** Connect and read timeout used by {@link #connect(String, int)}: 5 seconds. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private RespClient(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = new BufferedOutputStream(socket.getOutputStream());
    }

    /** Connects with {@link #DEFAULT_TIMEOUT} for the connect and for every reply. */
    public static RespClient connect(String host, int port) {
        return connect(host, port, DEFAULT_TIMEOUT);
    }

    /**
     * Connects with the given timeout for the connect and for every reply.
     *
     * @throws UncheckedIOException if the connection fails (its cause is e.g. a ConnectException)
     */
    public static RespClient connect(String host, int port, Duration timeout) {
        int millis = Math.toIntExact(timeout.toMillis());
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(millis);
            socket.connect(new InetSocketAddress(host, port), millis);
            return new RespClient(socket);
        } catch (IOException e) {
            closeQuietly(socket);
            throw new UncheckedIOException("cannot connect to " + host + ":" + port, e);
        }
    }

    /**
     * Sends one command and returns its reply: a String (simple or bulk string; null for a nil bulk),
     * a Long, or a List (null for a nil array) whose elements are any of these. An error nested inside
     * an array is returned as a {@link RedisErrorReply} element rather than thrown.
     *
     * @throws RedisErrorReply if the reply is an error, e.g. {@code MOVED 12182 127.0.0.1:7001}
     */
    public synchronized Object command(String... args) {
        try {
            out.write(('*' + Integer.toString(args.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (String arg : args) {
                byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
                out.write(('$' + Integer.toString(bytes.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(bytes);
                out.write('\r');
                out.write('\n');
            }
            out.flush();
            Object reply = read();
            if (reply instanceof RedisErrorReply error) {
                throw error;
            }
            return reply;
        } catch (IOException e) {
            throw new UncheckedIOException("I/O error on " + socket.getRemoteSocketAddress()
                    + " during " + (args.length == 0 ? "empty command" : args[0]), e);
        }
    }

    /** The text of {@code INFO <section>}, e.g. {@code info("replication")}. */
    public String info(String section) {
        return (String) command("INFO", section);
    }

    /**
     * Calls per command since start or {@code CONFIG RESETSTAT}, parsed from {@code INFO commandstats}:
     * lower-case command name to calls, e.g. {@code "evalsha" -> 12}. Commands never called are absent.
     */
    public Map<String, Long> commandStats() {
        Map<String, Long> calls = new LinkedHashMap<>();
        for (String line : info("commandstats").split("\r\n", -1)) { // other lines, empty ones too, skipped
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            int colon = line.indexOf(':');
            String name = line.substring("cmdstat_".length(), colon);
            for (String field : line.substring(colon + 1).split(",", -1)) {
                if (field.startsWith("calls=")) {
                    calls.put(name, Long.parseLong(field.substring("calls=".length())));
                }
            }
        }
        return Collections.unmodifiableMap(calls);
    }

    /** The number of keys in the selected database ({@code DBSIZE}). */
    public long dbSize() {
        return (Long) command("DBSIZE");
    }

    /** Deletes every key in every database ({@code FLUSHALL}). */
    public void flushAll() {
        command("FLUSHALL");
    }

    /** Closes the socket; never throws. */
    @Override
    public void close() {
        closeQuietly(socket);
    }

    /** The value of {@code name} in INFO text ({@code role:master} gives "master"), or null if absent. */
    static String infoField(String info, String name) {
        for (String line : info.split("\r\n", -1)) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1);
            }
        }
        return null;
    }

    private Object read() throws IOException {
        int type = in.read();
        if (type == -1) {
            throw new EOFException("connection closed by server");
        }
        String line = readLine();
        switch (type) {
            case '+' -> {
                return line;
            }
            case '-' -> {
                return new RedisErrorReply(line);
            }
            case ':' -> {
                return Long.parseLong(line);
            }
            case '$' -> {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] bytes = in.readNBytes(length);
                if (bytes.length != length || in.read() != '\r' || in.read() != '\n') {
                    throw new EOFException("truncated bulk string of " + length + " bytes");
                }
                return new String(bytes, StandardCharsets.UTF_8);
            }
            case '*' -> {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(read());
                }
                return items;
            }
            default -> throw new IOException("not a RESP2 reply type: '" + (char) type + "' followed by " + line);
        }
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int b = in.read();
            if (b == -1) {
                throw new EOFException("connection closed in the middle of a reply");
            }
            if (previous == '\r' && b == '\n') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            line.write(b);
            previous = b;
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing useful to do: the socket is unusable either way
        }
    }

    /** An error reply from Redis, e.g. {@code WRONGTYPE ...} or {@code MOVED 12182 127.0.0.1:7001}. */
    public static final class RedisErrorReply extends RuntimeException {

        private static final long serialVersionUID = 1L;

        /** Creates the exception from the error line without its leading '-'. */
        public RedisErrorReply(String message) {
            super(message);
        }

        /** The first word of the error, e.g. "MOVED", "ERR", "WRONGTYPE". */
        public String code() {
            String message = getMessage();
            int space = message.indexOf(' ');
            return space < 0 ? message : message.substring(0, space);
        }
    }
}
